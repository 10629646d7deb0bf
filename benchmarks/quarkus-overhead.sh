#!/usr/bin/env bash
# Requests/s of one Quarkus REST endpoint with and without Sluice (sluice-quarkus: the JAX-RS filter, memory store, a
# limit no load reaches, both header styles), as a ratio in one run: the same source and application.properties
# (benchmarks/quarkus-app), built twice, the two applications up side by side and measured back to back each round,
# which of the two goes first alternating. Needs wrk (Debian: apt-get install wrk).
# Usage: benchmarks/quarkus-overhead.sh [rounds] [seconds-per-run]; SKIP_BUILD=1 reuses the two builds in
# /tmp/sluice-quarkus-bench; MVN_OPTS="-o" builds offline. On a shared machine, run it under the benchmarks' lock:
#   flock /tmp/sluice-bench.lock benchmarks/quarkus-overhead.sh 5 10
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
seconds=${2:-10}
out=/tmp/sluice-quarkus-bench
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  rm -rf "$out" && mkdir -p "$out"
  mvn -q -B ${MVN_OPTS:-} -P'!with-sluice' -pl benchmarks/quarkus-app -am package -DskipTests -DskipITs
  cp -r benchmarks/quarkus-app/target/quarkus-app "$out/plain"
  mvn -q -B ${MVN_OPTS:-} -pl benchmarks/quarkus-app -am package -DskipTests -DskipITs    # with-sluice, by default
  cp -r benchmarks/quarkus-app/target/quarkus-app "$out/sluice"
fi
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
java -Xmx512m -Dquarkus.http.port=18091 -jar "$out/plain/quarkus-run.jar" > /tmp/sluice-quarkus-plain.log 2>&1 &
plain_pid=$!
java -Xmx512m -Dquarkus.http.port=18092 -jar "$out/sluice/quarkus-run.jar" > /tmp/sluice-quarkus-sluice.log 2>&1 &
sluice_pid=$!
trap 'kill $plain_pid $sluice_pid' EXIT
for port in 18091 18092; do
  for i in $(seq 1 300); do
    curl -sf "http://127.0.0.1:$port/" >/dev/null 2>&1 && break
    sleep 0.2
  done
done
# the one with Sluice answers with its headers, the other without: else the comparison is not what it says
curl -si http://127.0.0.1:18092/ | grep -qi '^RateLimit-Policy:' || { echo "no Sluice headers on :18092" >&2; exit 1; }
if curl -si http://127.0.0.1:18091/ | grep -qi '^RateLimit-Policy:'; then echo "Sluice headers on :18091" >&2; exit 1; fi
wrk -t1 -c16 -d5s http://127.0.0.1:18091/ >/dev/null    # warm-up, both
wrk -t1 -c16 -d5s http://127.0.0.1:18092/ >/dev/null
rps() { wrk -t1 -c16 -d"${seconds}s" "http://127.0.0.1:$1/" | awk '/Requests\/sec/ {print $2}'; }
ratios=()
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then p=$(rps 18091); s=$(rps 18092); else s=$(rps 18092); p=$(rps 18091); fi
  ratio=$(echo "scale=4; $s / $p" | bc)
  ratios+=("$ratio")
  echo "round $r: plain $p req/s, with Sluice $s req/s, ratio $ratio (load $(cut -d' ' -f1 /proc/loadavg))"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mr=$(median "${ratios[@]}")
echo "ratios: $(printf '%s\n' "${ratios[@]}" | sort -n | paste -sd ' '); median $mr, cost $(echo "scale=2; (1 - $mr) * 100" | bc)%"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
