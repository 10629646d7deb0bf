#!/usr/bin/env bash
# Instructions Redis executes per decision: Sluice alone (FCALL, and EVALSHA, Redis 6.2's path) and in the
# coalescer's batches of 8, 32 and 64 requests, one rule and four, on a hot key and on 100,000 keys, against the bare
# one-key script per call, counted by valgrind's callgrind around a redis-server with hz 1 (issues 21 and 31; see
# ScriptInstructions and RESULTS.md). Needs valgrind (callgrind_control) and redis-server.
# Usage: benchmarks/script-instructions.sh [decisions-per-row [rounds]]
#   REDIS_SERVER: the redis-server binary (default: the one on the PATH); SKIP_BUILD=1 uses the built jar;
#   CP: the class path to run (default benchmarks/target/benchmarks.jar). Another version of Sluice, measured with
#   this harness: CP=/path/to/its/benchmarks.jar:benchmarks/target/classes (its classes first, the harness after).
set -euo pipefail
cd "$(dirname "$0")/.."
decisions=${1:-6400}
rounds=${2:-1}
server=${REDIS_SERVER:-redis-server}
command -v callgrind_control >/dev/null || { echo "valgrind is needed: apt-get install -y valgrind" >&2; exit 1; }
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  mvn -q -B -o -pl benchmarks -am package -DskipTests -DskipITs
fi
cp=${CP:-benchmarks/target/benchmarks.jar}
dir=$(mktemp -d /tmp/sluice-callgrind.XXXXXX)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" "$server" --port "$port" --bind 127.0.0.1 \
    --hz 1 --save '' --appendonly no >"$dir/valgrind.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  redis-cli -p "$port" ping >/dev/null 2>&1 && break
  sleep 0.5
done
java -cp "$cp" io.sluice.benchmarks.ScriptInstructions "$port" "$pid" "$dir" "$decisions" "$rounds"
echo "dumps: $dir (callgrind_annotate --inclusive=yes $dir/callgrind.out.N)"
