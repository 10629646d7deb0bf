#!/usr/bin/env bash
# Spring Boot: requests/s of the same Boot application (examples/spring-boot, GET /greetings on embedded Tomcat)
# without Sluice (sluice.enabled=false) and with its filter (memory store, a limit no load reaches), side by side in
# one run: two JVMs started alike, measured one after the other in each round, which goes first alternating.
# Needs wrk (Debian: apt-get install wrk). Usage: benchmarks/spring-boot-throughput.sh [rounds] [seconds-per-run]
# SKIP_BUILD=1 uses examples/spring-boot/target/greetings-0.1.0-SNAPSHOT.jar as built; MVN_OPTS="-o" builds offline.
# On a shared machine, run it under a lock so that no other benchmark runs meanwhile:
#   flock /tmp/sluice-bench.lock benchmarks/spring-boot-throughput.sh 5 10
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
seconds=${2:-10}
jar=examples/spring-boot/target/greetings-0.1.0-SNAPSHOT.jar
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  mvn -q -B ${MVN_OPTS:-} -pl examples/spring-boot -am package -DskipTests
fi
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
common=(-Xmx512m -jar "$jar" --logging.level.root=WARN --management.endpoints.web.exposure.include=health)
java "${common[@]}" --server.port=18091 --sluice.enabled=false > /tmp/sluice-boot-plain.log 2>&1 &
plain_pid=$!
java "${common[@]}" --server.port=18092 --sluice.limit=1000000000/1s > /tmp/sluice-boot-sluice.log 2>&1 &
sluice_pid=$!
trap 'kill $plain_pid $sluice_pid' EXIT
for port in 18091 18092; do
  for i in $(seq 1 300); do
    curl -sf "http://127.0.0.1:$port/greetings" >/dev/null 2>&1 && break
    sleep 0.2
  done
done
curl -sfI http://127.0.0.1:18091/greetings | grep -qi '^RateLimit' && { echo "plain has Sluice's headers" >&2; exit 1; }
curl -sfI http://127.0.0.1:18092/greetings | grep -qi '^RateLimit-Policy' || { echo "no Sluice headers" >&2; exit 1; }
wrk -t1 -c16 -d30s http://127.0.0.1:18091/greetings >/dev/null    # warm-up, both (the JIT compiles both alike;
wrk -t1 -c16 -d30s http://127.0.0.1:18092/greetings >/dev/null    # on a loaded machine a shorter one left CPU/req falling)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }     # a JVM's user + system CPU, in clock ticks
# one run: "requests/s CPU-µs-per-request" (the server's CPU over the run divided by the requests wrk completed)
run() {
  local before after out
  before=$(ticks "$2")
  out=$(wrk -t1 -c16 -d"${seconds}s" "http://127.0.0.1:$1/greetings")
  after=$(ticks "$2")
  echo "$out" | awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" \
    '/requests in/ {n=$1} /Requests\/sec/ {rps=$2} END {printf "%s %.1f\n", rps, t / hz * 1e6 / n}'
}
plain=(); sluice=(); ratios=(); cpus=()
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then pr=$(run 18091 $plain_pid); sr=$(run 18092 $sluice_pid)
  else sr=$(run 18092 $sluice_pid); pr=$(run 18091 $plain_pid); fi
  p=${pr% *}; pc=${pr#* }; s=${sr% *}; sc=${sr#* }
  ratio=$(echo "scale=4; $s / $p" | bc); cpu=$(echo "scale=4; $sc / $pc" | bc)
  plain+=("$p"); sluice+=("$s"); ratios+=("$ratio"); cpus+=("$cpu")
  echo "round $r: plain $p req/s ($pc µs CPU/req), with Sluice $s req/s ($sc µs CPU/req), ratio $ratio," \
    "CPU/req x$cpu (load $(cut -d' ' -f1 /proc/loadavg))"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mr=$(median "${ratios[@]}")
echo "median: plain $(median "${plain[@]}") req/s, with Sluice $(median "${sluice[@]}") req/s;" \
  "median per-round ratio $mr, cost $(echo "scale=2; (1 - $mr) * 100" | bc)%;" \
  "ratios $(printf '%s\n' "${ratios[@]}" | sort -n | head -1)-$(printf '%s\n' "${ratios[@]}" | sort -n | tail -1)"
echo "server CPU per request with Sluice / without: median x$(median "${cpus[@]}") (process CPU time)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
