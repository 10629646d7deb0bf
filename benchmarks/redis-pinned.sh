#!/usr/bin/env bash
# RedisLoad with Redis pinned to one core and the load generator to the other (taskset), so that neither takes the
# other's core: where Redis is the bottleneck, as in a fleet, what its work per decision buys (issue 31). Needs
# taskset (util-linux) and redis-server; run under `flock /tmp/sluice-bench.lock` on a shared machine.
# Usage: benchmarks/redis-pinned.sh [seconds [rounds [row [contender,...]]]] (RedisLoad's arguments; default
#   2 3 "100,000 keys" bare-evalsha,sluice-gcra-1-rule)
#   REDIS_CPU, LOAD_CPU: the cores (default 0 and 1); SKIP_BUILD=1 uses the built jar.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-2}
rounds=${2:-3}
row=${3:-100,000 keys}
contenders=${4:-bare-evalsha,sluice-gcra-1-rule}
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  mvn -q -B -o -pl benchmarks -am package -DskipTests -DskipITs
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
taskset -c "${REDIS_CPU:-0}" redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no >/dev/null &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 60); do
  redis-cli -p "$port" ping >/dev/null 2>&1 && break
  sleep 0.2
done
echo "Redis on core ${REDIS_CPU:-0}, the load generator on core ${LOAD_CPU:-1}"
SLUICE_REDIS_URL="redis://127.0.0.1:$port" taskset -c "${LOAD_CPU:-1}" java -Dsluice.bench.each=true -cp benchmarks/target/benchmarks.jar \
    io.sluice.benchmarks.RedisLoad "$seconds" "$rounds" "$row" "$contenders"
