#!/usr/bin/env bash
# The server's memory before, during and after a flood of WebSocket viewers: a release
# `chartcast` (demo dashboard), FLOOD_VIEWERS (default 19000) viewers opened by chartcast-load over
# FLOOD_RAMP seconds (default 30) and closed together, then VmRSS sampled each second for 15 s. CHARTCAST_ARGS passes
# server flags (e.g. --no-memory-trim to see the allocator keep what it freed).
#
#   scripts/flood-memory.sh                         FLOOD_BIN=.build/release by default
#   CHARTCAST_ARGS=--no-memory-trim scripts/flood-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
FLOOD_VIEWERS=${FLOOD_VIEWERS:-19000}
FLOOD_BIN=${FLOOD_BIN:-.build/release}
FLOOD_RAMP=${FLOOD_RAMP:-30}
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
work=$(mktemp -d)
log="$work/chartcast.log"
# shellcheck disable=SC2086
"$FLOOD_BIN/chartcast" --port 0 --data none --log-level info --max-viewers 30000 --max-per-address 30000 ${CHARTCAST_ARGS:-} 2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
port=""
for _ in $(seq 100); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$log" | head -n1)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { cat "$log" >&2; exit 1; }
rss() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$server/status"; }
sleep 1
echo "before: $(rss) MiB"
"$FLOOD_BIN/chartcast-load" --url "ws://127.0.0.1:$port/ws" --viewers "$FLOOD_VIEWERS" --drivers 0 --duration 0 \
    --ramp "$FLOOD_RAMP" --connect-timeout 60 --server-pid "$server" --quiet >"$work/load.txt" || true
grep -iE "connect|rss|memory" "$work/load.txt" || true
for s in $(seq 15); do
    sleep 1
    echo "after ${s} s: $(rss) MiB"
done
grep -c 'connected from' "$log" | sed 's/^/viewers connected: /'
