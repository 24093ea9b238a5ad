#!/usr/bin/env bash
# Starts one redis-server (loopback, no persistence, in a temporary directory) and N chartcast
# instances joined through it into one dashboard, all on port PORT (--reuse-port: the kernel
# spreads connections over them), each with its own history directory in the same temporary
# directory. SEPARATE_PORTS=1 puts them on PORT … PORT+N-1 instead. Ctrl-C stops them all and
# removes the directory.
# Usage: N=2 PORT=8080 REDIS_PORT=6390 scripts/run-cluster.sh [chartcast flags…]
set -euo pipefail
n=${N:-2}
base=${PORT:-${BASE_PORT:-8080}}
separate=${SEPARATE_PORTS:-0}
redis_port=${REDIS_PORT:-6390}
bin=${CHARTCAST_BIN:-.build/release/chartcast}
[ -x "$bin" ] || { echo "run-cluster: $bin is missing (make release)" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "run-cluster: redis-server is missing (scripts/install-deps.sh cluster)" >&2; exit 1; }

dir=$(mktemp -d -t chartcast-cluster-XXXXXX)
pids=()
stop() {
  trap - EXIT INT TERM
  [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap stop EXIT INT TERM

redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" \
  --daemonize no --loglevel warning --logfile "$dir/redis.log" &
pids+=($!)
for _ in $(seq 50); do
  redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
  sleep 0.1
done
redis-cli -p "$redis_port" ping >/dev/null || { echo "run-cluster: redis-server did not start: $(cat "$dir/redis.log")" >&2; exit 1; }

for i in $(seq 0 $((n - 1))); do
  if [ "$separate" = 1 ]; then
    "$bin" --port $((base + i)) --redis "redis://127.0.0.1:$redis_port" --data "$dir/data-$i" "$@" &
  else
    "$bin" --port "$base" --reuse-port --redis "redis://127.0.0.1:$redis_port" --data "$dir/data-$i" "$@" &
  fi
  pids+=($!)
  sleep 0.2
done
if [ "$separate" = 1 ]; then
  echo "run-cluster: $n instances of one dashboard on http://127.0.0.1:$base/ … http://127.0.0.1:$((base + n - 1))/ (Redis on $redis_port); Ctrl-C stops them"
else
  echo "run-cluster: $n instances of one dashboard sharing http://127.0.0.1:$base/ (Redis on $redis_port); Ctrl-C stops them"
fi
wait -n "${pids[@]}" || true
