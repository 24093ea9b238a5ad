#!/usr/bin/env bash
# The scale-out measurements of docs/scale-out.md: the fan-out latency and deliveries per second
# of one instance alone, one instance through Redis, and two instances through Redis with the
# viewers spread over both, at VIEWERS_LIST viewers (default "100 1000").
#
# Release builds (swift build -c release --product chartcast / chartcast-load). One loopback
# redis-server without persistence and every process in a temporary directory, removed at the
# end. Drivers hover (DRIVERS drivers at RATE Hz each, DURATION s); the demo feed is quiet
# (--tick 3600) so that what is measured is the selection's way to the viewers. The load tester
# runs on the same machine as the servers.
# Usage: scripts/scale-out-bench.sh            (VIEWERS_LIST, DRIVERS, RATE, DURATION to change)
set -euo pipefail
viewers_list=${VIEWERS_LIST:-"100 1000"}
drivers=${DRIVERS:-2}
rate=${RATE:-30}
duration=${DURATION:-10}
bin=${CHARTCAST_BIN:-.build/release/chartcast}
load=${CHARTCAST_LOAD_BIN:-.build/release/chartcast-load}
for b in "$bin" "$load"; do [ -x "$b" ] || { echo "scale-out-bench: $b is missing (swift build -c release)" >&2; exit 1; }; done
command -v redis-server >/dev/null || { echo "scale-out-bench: redis-server is missing" >&2; exit 1; }

dir=$(mktemp -d -t chartcast-scale-XXXXXX)
pids=()
cleanup() {
  [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_redis() {
  redis_port=$(free_port)
  redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --daemonize no \
    --loglevel warning --logfile "$dir/redis.log" &
  redis_pid=$!
  pids+=("$redis_pid")
  for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && return; sleep 0.1; done
  echo "scale-out-bench: redis-server did not start" >&2; exit 1
}

# start_instance PORT [ARGS…]: a release chartcast, waited for /healthz.
start_instance() {
  local port=$1; shift
  "$bin" --port "$port" --data none --tick 3600 --log-level error --max-per-address 100000 --max-viewers 100000 "$@" \
    2>>"$dir/chartcast.log" &
  pids+=($!)
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && return; sleep 0.05; done
  echo "scale-out-bench: chartcast on $port did not start: $(tail -3 "$dir/chartcast.log")" >&2; exit 1
}

stop_all() {
  kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  pids=()
}

# run LABEL VIEWERS URL…: one load run, one result line.
run() {
  local label=$1 viewers=$2; shift 2
  local urls=() json="$dir/$label-$viewers.json"
  for url in "$@"; do urls+=(--url "$url"); done
  "$load" "${urls[@]}" --viewers "$viewers" --drivers "$drivers" --rate "$rate" --duration "$duration" --ramp 2 \
    --pattern hover --quiet --json "$json" > "$dir/$label-$viewers.txt" || true
  python3 - "$json" "$label" "$viewers" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
f = r["fanoutMs"]
deliveries = r["stateMessages"] / r["driveSeconds"] if r["driveSeconds"] else 0
ok = "converged" if r["convergence"]["converged"] else "NOT converged"
print(f"{sys.argv[2]:<28} {sys.argv[3]:>5} viewers  fan-out p50 {f['p50']:6.2f}  p99 {f['p99']:6.2f}  max {f['max']:7.2f} ms"
      f"  {deliveries:9.0f} deliveries/s  ({r['connections']['ok']} ok, {ok})")
EOF
}

echo "scale-out-bench: $drivers drivers × $rate Hz hover, $duration s per run, on $(nproc) cores"
for viewers in $viewers_list; do
  p1=$(free_port)
  start_instance "$p1"
  run "one instance, no Redis" "$viewers" "ws://127.0.0.1:$p1/ws"
  stop_all

  start_redis
  p1=$(free_port)
  start_instance "$p1" --redis "redis://127.0.0.1:$redis_port"
  run "one instance via Redis" "$viewers" "ws://127.0.0.1:$p1/ws"
  stop_all

  start_redis
  p1=$(free_port); p2=$(free_port)
  start_instance "$p1" --redis "redis://127.0.0.1:$redis_port"
  start_instance "$p2" --redis "redis://127.0.0.1:$redis_port"
  run "two instances via Redis" "$viewers" "ws://127.0.0.1:$p1/ws" "ws://127.0.0.1:$p2/ws"
  stop_all
done
