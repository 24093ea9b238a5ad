#!/usr/bin/env bash
# Builds the libFuzzer targets (chartcast-fuzz with -sanitize=fuzzer,address) and runs each for a
# set time, with AddressSanitizer and LeakSanitizer on.
#
#   scripts/fuzz.sh [seconds per target] [target…]     (default: $FUZZ_SECONDS or 300, every target)
#
# The sanitizer build goes to its own build path (.build/fuzz), so the normal .build is untouched.
# Each run starts from a copy of Fuzz/corpus/<target> in a temporary directory and writes its new
# corpus entries and any crash artefact there, never into the working tree; a failing target's
# directory is kept and printed, with the command that reproduces the finding.
#
# Note: the driver is given `-sanitize=fuzzer,address` as ONE flag: swift-driver keeps only the
# last `-sanitize=` it is given, so `-sanitize=fuzzer -sanitize=address` silently builds without
# coverage instrumentation and libFuzzer fuzzes blind.
#
# Environment: FUZZ_SECONDS, FUZZ_CONFIG (release | debug, default release), FUZZ_ARGS (extra
# libFuzzer flags), SWIFT. Exits 1 when any target crashed, leaked, hung or ran out of memory.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
SECONDS_PER_TARGET=${1:-${FUZZ_SECONDS:-300}}
shift || true
CONFIG=${FUZZ_CONFIG:-release}
ALL_TARGETS=(json-reader client-message spec ingest-json ingest-csv line-protocol gzip)
if [ $# -gt 0 ]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi

echo "fuzz: building chartcast-fuzz ($CONFIG, -sanitize=fuzzer,address) into .build/fuzz"
build_start=$(date +%s)
"$SWIFT" build -c "$CONFIG" --product chartcast-fuzz --build-path .build/fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
echo "fuzz: built in $(( $(date +%s) - build_start )) s"
BIN=.build/fuzz/$CONFIG/chartcast-fuzz

# Swift's own crash backtracer reads the stack in a way AddressSanitizer reports as a second
# error; libFuzzer and ASan print the crash themselves.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}

failed=0
summary=()
for target in "${TARGETS[@]}"; do
    if [ ! -d "Fuzz/corpus/$target" ]; then echo "fuzz: no seed corpus Fuzz/corpus/$target" >&2; exit 2; fi
    work=$(mktemp -d "${TMPDIR:-/tmp}/chartcast-fuzz-$target.XXXXXX")
    mkdir -p "$work/corpus" "$work/artifacts"
    cp Fuzz/corpus/"$target"/* "$work/corpus/"
    echo "fuzz: $target for $SECONDS_PER_TARGET s (log: $work/log)"
    status=0
    # -timeout: one input taking 10 s is a hang; -malloc_limit_mb: one allocation of 512 MB from
    # an input of a few KB is a finding; -rss_limit_mb: the process growing past 2 GB is a leak.
    "$BIN" "$target" -max_total_time="$SECONDS_PER_TARGET" -detect_leaks=1 -timeout=10 \
        -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
        -artifact_prefix="$work/artifacts/" ${FUZZ_ARGS:-} "$work/corpus" >"$work/log" 2>&1 || status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" | grep -o '[0-9]*$' || true)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$work/log" | grep -o '[0-9]*$' || true)
    if [ -z "$runs" ]; then runs=$(grep -o '^#[0-9]*' "$work/log" | tail -1 | tr -d '#' || true); fi
    findings=$(find "$work/artifacts" -type f | wc -l)
    kind=ok
    if grep -q 'ERROR: LeakSanitizer' "$work/log"; then kind=leak
    elif grep -q 'ERROR: libFuzzer: timeout' "$work/log"; then kind=timeout
    elif grep -q 'ERROR: libFuzzer: out-of-memory\|malloc(.*) exceeds limit' "$work/log"; then kind=out-of-memory
    elif [ "$status" -ne 0 ] || [ "$findings" -gt 0 ]; then kind=crash
    fi
    line=$(printf '%-15s %12s executions %8s exec/s  %d findings  %s' "$target" "${runs:-?}" "${rate:-?}" "$findings" "$kind")
    echo "fuzz: $line"
    summary+=("$line")
    if [ "$kind" != ok ]; then
        failed=1
        grep -m 5 -E 'ERROR:|Fatal error|invariant broken|SUMMARY' "$work/log" | sed 's/^/    /' || true
        for artefact in "$work"/artifacts/*; do
            [ -f "$artefact" ] || continue
            echo "    input: $artefact"
            echo "    reproduce: $BIN $target $artefact"
        done
        echo "    kept: $work"
    else
        rm -rf "$work"
    fi
done

echo "fuzz: summary ($SECONDS_PER_TARGET s per target)"
for line in "${summary[@]}"; do echo "  $line"; done
if [ "$failed" -ne 0 ]; then
    echo "fuzz: FAILED (add each input to Fuzz/corpus/<target>/ with a regression test once fixed)"
    exit 1
fi
echo "fuzz: every target ran clean: no crash, leak, hang or out-of-memory"
