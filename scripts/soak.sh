#!/usr/bin/env bash
# make soak: a release `chartcast` (demo dashboard, live ticks) held under 1,000 viewers and a
# few drivers for SOAK_SECONDS (default 1800) by `chartcast-load --soak`, with viewers stalling,
# viewers and mid-drag drivers vanishing, and drivers freezing mid-drag. Passes when no
# connection failed or was dropped, no protocol error was received, every viewer converged at
# the end, the server's RSS (sampled every 10 s) stayed within ±5 % after the warm-up, and the
# server logged no error.
#
#   SOAK_SECONDS=120 scripts/soak.sh              a two-minute run
#   SOAK_BUILD=debug scripts/soak.sh              the debug binaries (no release build)
#   SOAK_ARGS="--viewers 2000 --drivers 8" …      more chartcast-load --soak options
#   SOAK_SERVER_ARGS="--tick 0.2" …               more chartcast options
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
SOAK_SECONDS=${SOAK_SECONDS:-1800}
SOAK_BUILD=${SOAK_BUILD:-release}
if [ -z "${SOAK_BIN:-}" ]; then
    "$SWIFT" build -c "$SOAK_BUILD" --product chartcast
    "$SWIFT" build -c "$SOAK_BUILD" --product chartcast-load
    SOAK_BIN=$("$SWIFT" build -c "$SOAK_BUILD" --show-bin-path)
fi

work=$(mktemp -d)
log="$work/chartcast.log"
# Room for the crowd and its churn on both sides (the crowd comes from one address, loopback).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# shellcheck disable=SC2086
"$SOAK_BIN/chartcast" --port 0 --data none --tick 0.5 --log-level info --max-per-address 30000 ${SOAK_SERVER_ARGS:-} 2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
port=""
for _ in $(seq 100); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$log" | head -n1)
    [ -n "$port" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$log" >&2; echo "soak: chartcast did not start" >&2; exit 1; }
    sleep 0.1
done
[ -n "$port" ] || { cat "$log" >&2; echo "soak: chartcast did not report its port" >&2; exit 1; }
echo "soak: chartcast pid $server on port $port for ${SOAK_SECONDS} s (server log: $log)" >&2

status=0
# shellcheck disable=SC2086
"$SOAK_BIN/chartcast-load" --soak "$SOAK_SECONDS" --url "ws://127.0.0.1:$port/ws" --server-pid "$server" ${SOAK_ARGS:-} || status=$?

echo "server log: $(wc -l <"$log") lines, $(grep -c ' warn ' "$log" || true) warnings, $(grep -c ' error ' "$log" || true) errors; drag leases ended: $(grep -c 'lost the drag' "$log" || true); viewers closed for not reading: $(grep -c 'closed for not reading' "$log" || true)"
if grep -q ' error ' "$log"; then
    grep ' error ' "$log" | head -n 20 >&2
    echo "soak: the server logged errors" >&2
    status=1
fi
kill -0 "$server" 2>/dev/null || { echo "soak: the server exited" >&2; status=1; }
exit "$status"
