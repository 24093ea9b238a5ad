#!/usr/bin/env bash
# ChartCast against the raw libwebsockets fan-out baseline, side by side.
#
# For each scenario, starts a fresh server on loopback (ChartCast, then Debian's
# libwebsockets-test-server with its lws-mirror-protocol), runs chartcast-load against it
# with the same viewer/driver counts, rate and message size, and keeps both JSON reports; for
# n100, n1000 and n5000 also the send() floor (chartcast-load --send-floor: each event a message
# read from a socket after epoll_wait, as a server is woken, then the same frames as one send()
# per socket and nothing else).
# Then prints one table with ratios and the targets checked, and writes it (with every
# report) to bench/results/<date>.json. The server runs on core 0 and the load on core 1
# when taskset exists and there are two cores.
#
# Environment: DURATION (s, default 10), STALL_DURATION (s, default 30), SCENARIOS (default
# "n100 n1000 n5000 range1000 stall1000 hold10k leave5000 ingest100"), BIN (directory holding release chartcast
# and chartcast-load; built when unset), INGEST_RATE (points/s the ingest100 publishers ask for,
# default 400000), MIRROR_SERVER (default
# /usr/bin/libwebsockets-test-server), PATTERN (default hover).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
DURATION=${DURATION:-10}
SCENARIOS=${SCENARIOS:-"n100 n1000 n5000 range1000 stall1000 hold10k leave5000 ingest100"}
STALL_DURATION=${STALL_DURATION:-30}
MIRROR_SERVER=${MIRROR_SERVER:-/usr/bin/libwebsockets-test-server}
PATTERN=${PATTERN:-hover}

if [ -z "${BIN:-}" ]; then
    swift build -c release --product chartcast >&2
    swift build -c release --product chartcast-load >&2
    BIN=$(swift build -c release --show-bin-path)
fi
[ -x "$BIN/chartcast" ] && [ -x "$BIN/chartcast-load" ] || { echo "bench: no chartcast/chartcast-load in $BIN" >&2; exit 1; }
HAVE_MIRROR=1
[ -x "$MIRROR_SERVER" ] || { echo "bench: $MIRROR_SERVER not found; running ChartCast only" >&2; HAVE_MIRROR=0; }

# 10,000 viewers need 10,000 sockets on each side.
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)" || true

SERVER_PIN=()
LOAD_PIN=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    SERVER_PIN=(taskset -c 0)
    LOAD_PIN=(taskset -c 1)
fi

WORK=$(mktemp -d /tmp/chartcast-bench.XXXXXX)
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

# A loopback port nobody listens on.
free_port() {
    local port
    while true; do
        # Below the kernel's ephemeral range (32768–60999): the thousands of client connections a
        # scenario opens take ports there, and one still held would make the next server's bind fail.
        port=$(( (RANDOM % 12000) + 20000 ))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return; fi
    done
}

wait_listening() {
    local port=$1
    for _ in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    echo "bench: server did not listen on $port" >&2
    return 1
}

# GET /metrics from the ChartCast server (bash's /dev/tcp: no HTTP client needed).
fetch_metrics() {
    exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
    printf 'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
    timeout 5 cat <&3 | grep '^chartcast_' || true
    exec 3<&-
}

stop_server() {
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

# scenario name -> "viewers drivers rate ramp stalled duration pattern"
# The stall pair uses ranges (selections of ~0.9 KB with their rows) for 30 s so that the
# stalled viewer's traffic outgrows the kernel's socket buffers and the server must hold back.
params() {
    case "$1" in
        n100)      echo "100 1 60 0.5 0 $DURATION $PATTERN" ;;
        n1000)     echo "1000 1 60 1 0 $DURATION $PATTERN" ;;
        n5000)     echo "5000 1 10 3 0 $DURATION $PATTERN" ;;
        range1000) echo "1000 1 60 1 0 $STALL_DURATION range" ;;
        stall1000) echo "1000 1 60 1 1 $STALL_DURATION range" ;;
        hold10k)   echo "10000 1 1 6 0 5 $PATTERN" ;;
        # A crowd arrives over 3 s, idles, then leaves at once: CPU per departure vs per arrival.
        leave5000) echo "5000 1 1 3 0 2 $PATTERN" ;;
        # n100's load plus HTTP ingest: 4 publishers writing 10,000-point batches as fast as asked,
        # to charts that keep an hour of history (each write answered after its commit).
        ingest100) echo "100 1 60 0.5 0 $DURATION $PATTERN" ;;
        *) echo "bench: unknown scenario $1" >&2; return 1 ;;
    esac
}

for scenario in $SCENARIOS; do
    read -r viewers drivers rate ramp stalled duration pattern < <(params "$scenario")
    common=(--viewers "$viewers" --drivers "$drivers" --rate "$rate" --duration "$duration" --ramp "$ramp"
            --stalled "$stalled" --settle 10 --connect-timeout 30 --quiet)

    echo "== $scenario: chartcast, $viewers viewers × $rate Hz, $pattern" >&2
    port=$(free_port)
    extra=()
    [ "$scenario" = ingest100 ] && extra=(--publishers 4 --points-per-second "${INGEST_RATE:-400000}" --batch-points 10000 --retention 3600)
    # History in a fresh directory per scenario: ingest100's writes are answered after their commit.
    # Every viewer comes from 127.0.0.1: the caps (1,000 per address, 10,000 viewers) are raised.
    "${SERVER_PIN[@]}" "$BIN/chartcast" --port "$port" --log-level error --data "$WORK/data-$scenario" \
        --max-per-address 30000 --max-viewers 30000 \
        >"$WORK/$scenario.chartcast.log" 2>&1 &
    SERVER_PID=$!
    wait_listening "$port"
    "${LOAD_PIN[@]}" "$BIN/chartcast-load" --url "ws://127.0.0.1:$port/ws" --server-pid "$SERVER_PID" \
        --pattern "$pattern" "${common[@]}" "${extra[@]}" --json "$WORK/$scenario.chartcast.json" >&2 || true
    # The server's own counters (coalesced states, resent snapshots) for the record.
    fetch_metrics "$port" >"$WORK/$scenario.chartcast.metrics" || true
    stop_server
    du -sh "$WORK/data-$scenario" >"$WORK/$scenario.chartcast.history-size" 2>/dev/null || true
    rm -rf "$WORK/data-$scenario"

    # The mirror and the send() floor carry messages as large as ChartCast's mean state message.
    size=$(grep -o '"meanStateBytes":[0-9.]*' "$WORK/$scenario.chartcast.json" 2>/dev/null | cut -d: -f2 | cut -d. -f1 || true)
    [ -n "$size" ] && [ "$size" -ge 128 ] || size=400
    if [ "$HAVE_MIRROR" = 1 ] && [ "$scenario" != ingest100 ]; then
        echo "== $scenario: mirror, $viewers viewers × $rate Hz, $size-byte messages" >&2
        port=$(free_port)
        "${SERVER_PIN[@]}" "$MIRROR_SERVER" --port="$port" -d 0 >"$WORK/$scenario.mirror.log" 2>&1 &
        SERVER_PID=$!
        wait_listening "$port"
        "${LOAD_PIN[@]}" "$BIN/chartcast-load" --mirror --url "ws://127.0.0.1:$port/" --server-pid "$SERVER_PID" \
            --message-size "$size" "${common[@]}" --json "$WORK/$scenario.mirror.json" >&2 || true
        stop_server
    fi

    # The send() floor for the same frames: each event read from a socket, then one send per
    # socket and nothing else, on the server's core (the driver and the reader on the tester's),
    # so each server's cost reads against it.
    case "$scenario" in n100|n1000|n5000)
        events=$(awk -v r="$rate" -v d="$drivers" 'BEGIN { print r * d }')
        pins=()
        [ ${#SERVER_PIN[@]} -gt 0 ] && pins=(--sender-cpu 0 --reader-cpu 1)
        echo "== $scenario: send() floor, $((viewers + drivers)) sockets × $events Hz, $size-byte messages" >&2
        "$BIN/chartcast-load" --send-floor --viewers "$((viewers + drivers))" --rate "$events" --duration "$duration" \
            --message-size "$size" "${pins[@]}" --json "$WORK/$scenario.floor.json" >&2 || true
        ;;
    esac
done

mkdir -p "$ROOT/bench/results"
out="$ROOT/bench/results/$(date -u +%Y-%m-%d).json"
[ -e "$out" ] && out="$ROOT/bench/results/$(date -u +%Y-%m-%d-%H%M%S).json"
# The table marks missed targets; the script fails only when no results could be written.
"$BIN/chartcast-load" --compare "$WORK" --json "$out" || true
[ -s "$out" ] || { echo "bench: no results written" >&2; exit 1; }
echo "results: $out (raw reports in $WORK)"
