#!/usr/bin/env bash
# HTTP throughput with and without the Sluice filter, side by side in one run (issue: the filter costs <= 5%).
# Needs wrk (Debian: apt-get install wrk). Usage: benchmarks/http-throughput.sh [rounds] [seconds-per-run]
# SKIP_BUILD=1 uses benchmarks/target/benchmarks.jar as built; MVN_OPTS="-o" builds offline; FLOOR=1 adds a run per
# round against :18083, a filter that only sets the attribute and adds the same five headers (see HttpServers); IETF=1
# adds one against :18084, Sluice with headers=ietf (the two standard fields only); both together add :18085 as well,
# the floor filter with those two headers only. With a floor, each Sluice run's cost beyond its floor (the same
# headers) is printed in percentage points of the plain servlet's throughput: the median of the per-round differences.
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
if [ "${FLOOR:-0}" = 1 ]; then wrk -t1 -c16 -d5s http://127.0.0.1:18083/ >/dev/null; fi
if [ "${IETF:-0}" = 1 ]; then wrk -t1 -c16 -d5s http://127.0.0.1:18084/ >/dev/null; fi
if [ "${FLOOR:-0}${IETF:-0}" = 11 ]; then wrk -t1 -c16 -d5s http://127.0.0.1:18085/ >/dev/null; fi
plain=(); sluice=(); ratios=(); cpus=()
ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }     # the server JVM's user + system CPU, in clock ticks
# one run: "requests/s CPU-µs-per-request" (the server's CPU over the run divided by the requests wrk completed)
run() {
  local before after out
  before=$(ticks)
  out=$(wrk -t1 -c16 -d"${seconds}s" "http://127.0.0.1:$1/")
  after=$(ticks)
  echo "$out" | awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" \
    '/requests in/ {n=$1} /Requests\/sec/ {rps=$2} END {printf "%s %.2f\n", rps, t / hz * 1e6 / n}'
}
# extra runs per round, each compared with that round's plain run: "port label"
extras=()
if [ "${FLOOR:-0}" = 1 ]; then extras+=("18083 floor filter (attribute and the five headers, fixed text)"); fi
if [ "${IETF:-0}" = 1 ]; then extras+=("18084 Sluice with headers=ietf"); fi
if [ "${FLOOR:-0}${IETF:-0}" = 11 ]; then extras+=("18085 floor filter (attribute and the two ietf headers)"); fi
declare -A xr xc     # per extra: its per-round ratios and CPU ratios, space-separated
declare -A res
for r in $(seq 1 "$rounds"); do
  # the runs of a round are back to back: plain and Sluice next to each other, which of the two goes first
  # alternating, and the extras after the pair in odd rounds and before it in even ones, so a drift in machine load
  # favours none of them
  if [ $((r % 2)) -eq 1 ]; then pair=(18081 18082); else pair=(18082 18081); fi
  order=()
  if [ $((r % 2)) -eq 0 ]; then for x in ${extras[@]+"${extras[@]}"}; do order+=("${x%% *}"); done; fi
  order+=("${pair[@]}")
  if [ $((r % 2)) -eq 1 ]; then for x in ${extras[@]+"${extras[@]}"}; do order+=("${x%% *}"); done; fi
  for port in "${order[@]}"; do res[$port]=$(run "$port"); done
  pr=${res[18081]}; sr=${res[18082]}
  p=${pr% *}; pc=${pr#* }; s=${sr% *}; sc=${sr#* }
  ratio=$(echo "scale=4; $s / $p" | bc); cpu=$(echo "scale=4; $sc / $pc" | bc)
  plain+=("$p"); sluice+=("$s"); ratios+=("$ratio"); cpus+=("$cpu")
  extra=""
  for x in ${extras[@]+"${extras[@]}"}; do      # the breakdown: each extra against the same round's plain run
    port=${x%% *}
    fr=${res[$port]}; f=${fr% *}; fc=${fr#* }
    xr[$port]+="$(echo "scale=4; $f / $p" | bc) "; xc[$port]+="$(echo "scale=4; $fc / $pc" | bc) "
    extra+=", :$port $f req/s ($fc µs CPU/req)"
  done
  echo "round $r: plain $p req/s ($pc µs CPU/req), with Sluice $s req/s ($sc µs CPU/req)$extra, ratio $ratio, CPU/req x$cpu (load $(cut -d' ' -f1 /proc/loadavg))"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mp=$(median "${plain[@]}"); ms=$(median "${sluice[@]}"); mr=$(median "${ratios[@]}"); mc=$(median "${cpus[@]}")
# each round measures both back to back: the median of the per-round ratios is the figure, not a ratio of medians
echo "median: plain $mp req/s, with Sluice $ms req/s; median per-round ratio $mr, cost $(echo "scale=2; (1 - $mr) * 100" | bc)%"
echo "server CPU per request with Sluice / without: median x$mc (process CPU time; noisy too on a shared VM)"
for x in ${extras[@]+"${extras[@]}"}; do
  port=${x%% *}
  # shellcheck disable=SC2086
  mx=$(median ${xr[$port]})
  # shellcheck disable=SC2086
  echo ":$port ${x#* } / plain: median per-round ratio $mx, cost $(echo "scale=2; (1 - $mx) * 100" | bc)%, CPU/req x$(median ${xc[$port]})"
done
# Sluice's own cost beyond a filter that adds the same headers: per round, floor ratio - Sluice ratio, in points
overfloor() {   # label, Sluice's per-round ratios, the floor's (space-separated, in round order)
  local d
  d=$(paste -d' ' <(printf '%s\n' $2) <(printf '%s\n' $3) | awk '{printf "%.2f ", ($2 - $1) * 100}')
  # shellcheck disable=SC2086
  echo "$1 over its floor: per round $d-> median $(median $d) points of plain's throughput"
}
if [ "${FLOOR:-0}" = 1 ]; then overfloor "Sluice (headers=both)" "${ratios[*]}" "${xr[18083]}"; fi
if [ "${FLOOR:-0}${IETF:-0}" = 11 ]; then overfloor "Sluice (headers=ietf)" "${xr[18084]}" "${xr[18085]}"; fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
