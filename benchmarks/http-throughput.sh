#!/usr/bin/env bash
# HTTP throughput with and without the Sluice filter, side by side in one run (issue: the filter costs <= 5%).
# Needs wrk (Debian: apt-get install wrk). Usage: benchmarks/http-throughput.sh [rounds] [seconds-per-run]
# SKIP_BUILD=1 uses benchmarks/target/benchmarks.jar as built; MVN_OPTS="-o" builds offline.
# On a shared machine, run it under a lock so that no other benchmark runs meanwhile:
#   flock /tmp/sluice-bench.lock benchmarks/http-throughput.sh 9 10
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
seconds=${2:-10}
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  mvn -q -B ${MVN_OPTS:-} -pl benchmarks -am package -DskipTests
fi
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
java -Xmx512m -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.HttpServers > /tmp/sluice-http-servers.log 2>&1 &
server=$!
trap 'kill $server' EXIT
for i in $(seq 1 100); do
  curl -sf http://127.0.0.1:18082/ >/dev/null 2>&1 && break
  sleep 0.2
done
wrk -t1 -c16 -d5s http://127.0.0.1:18081/ >/dev/null    # warm-up, both
wrk -t1 -c16 -d5s http://127.0.0.1:18082/ >/dev/null
plain=(); sluice=(); ratios=()
run() { wrk -t1 -c16 -d"${seconds}s" "http://127.0.0.1:$1/" | awk '/Requests\/sec/ {print $2}'; }
for r in $(seq 1 "$rounds"); do
  # the two runs of a round are back to back; which goes first alternates, so a drift in machine load favours neither
  if [ $((r % 2)) -eq 1 ]; then p=$(run 18081); s=$(run 18082); else s=$(run 18082); p=$(run 18081); fi
  plain+=("$p"); sluice+=("$s"); ratios+=("$(echo "scale=4; $s / $p" | bc)")
  echo "round $r: plain $p req/s, with Sluice $s req/s, ratio $(echo "scale=4; $s / $p" | bc)  (load $(cut -d' ' -f1 /proc/loadavg))"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mp=$(median "${plain[@]}"); ms=$(median "${sluice[@]}"); mr=$(median "${ratios[@]}")
# each round measures both back to back: the median of the per-round ratios is the figure, not a ratio of medians
echo "median: plain $mp req/s, with Sluice $ms req/s; median per-round ratio $mr, cost $(echo "scale=2; (1 - $mr) * 100" | bc)%"
