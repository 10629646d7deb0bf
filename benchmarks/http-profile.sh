#!/usr/bin/env bash
# Where an HTTP request's CPU goes, with and without Sluice: async-profiler (a benchmarks dependency) samples the
# server JVM's CPU, Java, JVM and kernel frames alike, while wrk loads Sluice (:18082, headers=both) and then the floor
# filter (:18083, the same attribute and five headers with fixed text; see HttpServers). For each it prints the
# requests served, the CPU samples per request, and the samples inside the filter but outside the chain (the
# filter's own work, header writes included), in µs per request. Profiles go to $OUT (default /tmp/sluice-profile) as
# collapsed stacks, for a flame graph or grep. Needs wrk (Debian: apt-get install -y wrk).
# Usage: benchmarks/http-profile.sh [seconds-per-profile] [rounds]; SKIP_BUILD=1 uses benchmarks/target/benchmarks.jar.
#   flock /tmp/sluice-bench.lock benchmarks/http-profile.sh 12 2
# Profiling slows the servers (about half the requests per second at a 1 ms interval); compare the two filters with
# each other, not with http-throughput.sh's figures.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-12}
rounds=${2:-2}
interval_us=${INTERVAL_US:-1000}
out=${OUT:-/tmp/sluice-profile}
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  mvn -q -B ${MVN_OPTS:-} -pl benchmarks -am package -DskipTests
fi
mkdir -p "$out"
coproc SERVER { exec java -Xmx512m -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
    -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.ProfiledHttpServers 2>"$out/servers.log"; }
trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT
while read -r line <&"${SERVER[0]}"; do     # the servers' own lines, then "ready"
  [ "$line" = ready ] && break
  echo "$line"
done
[ "${line:-}" = ready ] || { echo "the servers did not start: see $out/servers.log" >&2; exit 1; }
send() { echo "$1" >&"${SERVER[1]}"; local reply; read -r reply <&"${SERVER[0]}"; echo "  profiler: $reply" >&2; }
wrk -t1 -c16 -d8s http://127.0.0.1:18082/ >/dev/null     # warm-up, both
wrk -t1 -c16 -d8s http://127.0.0.1:18083/ >/dev/null
for r in $(seq 1 "$rounds"); do
  for target in 18082:sluice 18083:floor; do
    port=${target%%:*}; name=${target#*:}; file="$out/$name-$r.collapsed"
    send "start,event=cpu,interval=${interval_us}us,threads"
    requests=$(wrk -t1 -c16 -d"${seconds}s" "http://127.0.0.1:$port/" | awk '/requests in/ {print $1}')
    send "stop,file=$file,collapsed"
    # a collapsed line is "frames count"; the filter's own work: under its doFilter, not under the chain's end
    awk -v n="$requests" -v us="$interval_us" -v name="$name" -v r="$r" '
      { c = $NF; total += c
        if ($0 ~ /RateLimitFilter\.doFilter|HttpServers\$Floor\.doFilter/ && $0 !~ /ServletHandler\$ChainEnd\.doFilter/) own += c }
      END { printf "round %d, %-6s: %d requests, %.2f µs CPU per request, of which the filter itself %.3f µs\n",
                   r, name, n, total * us / n, own * us / n }' "$file"
  done
done
echo "" >&"${SERVER[1]}"
