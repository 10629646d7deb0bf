#!/usr/bin/env bash
# Black-box check of a deployed demo WAR: ./check-demo.sh http://127.0.0.1:18080[/context]
# Prints one line per check and "check-demo: N passed, M failed"; exits 1 when any failed.
# Each endpoint is hit from this machine's address, so run it once per fresh deployment (counts persist 10 s).
set -uo pipefail
BASE=${1:?usage: check-demo.sh BASE_URL}
passed=0; failed=0
check() { if [ "$2" = "$3" ]; then echo "PASS $1"; passed=$((passed+1)); else echo "FAIL $1: expected [$3], got [$2]"; failed=$((failed+1)); fi; }
statuses() { local out=""; for _ in $(seq "$2"); do out+="$(curl -s -o /dev/null -w '%{http_code}' "$BASE$1") "; done; echo "${out% }"; }
header() { curl -s -o /dev/null -D - "$BASE$1" | tr -d '\r' | grep -i "^$2:" | head -1 | cut -d' ' -f2-; }
# the 10 s windows are aligned to the epoch: a burst that crosses a boundary is allowed in full, as documented, so a
# burst that must see the limit starts early in a window (waits at most 3 s)
early_in_window() { local rem=$(( $(date +%s%3N) % 10000 )); if [ "$rem" -gt 7000 ]; then sleep "$(( 10100 - rem ))e-3"; fi; }

check "playground page /" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/")" 200
check "playground script" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/playground.js")" 200
early_in_window; check "/api/hello: 5 per 10 s" "$(statuses /api/hello 6)" "200 200 200 200 200 429"
denied=$(curl -s -D /tmp/check-demo-headers.$$ "$BASE/api/hello")
check "/api/hello: envelope" "$(echo "$denied" | grep -o '"code":"rate_limited"')" '"code":"rate_limited"'
check "/api/hello: RateLimit-Policy" "$(tr -d '\r' < /tmp/check-demo-headers.$$ | grep -i '^RateLimit-Policy:' | cut -d' ' -f2-)" '"hello";q=5;w=10'
check "/api/hello: X-RateLimit-Limit" "$(tr -d '\r' < /tmp/check-demo-headers.$$ | grep -i '^X-RateLimit-Limit:' | cut -d' ' -f2-)" 5
check "/api/hello: Retry-After present" "$(tr -d '\r' < /tmp/check-demo-headers.$$ | grep -ci '^Retry-After:')" 1
rm -f /tmp/check-demo-headers.$$
early_in_window; check "fixed-window 5/10s" "$(statuses /api/algorithms/fixed-window 6)" "200 200 200 200 200 429"
early_in_window; check "sliding-window 5/10s" "$(statuses /api/algorithms/sliding-window 6)" "200 200 200 200 200 429"
check "sliding-log min-interval 1s" "$(statuses /api/algorithms/sliding-log 2)" "200 429"
for a in token-bucket leaky-bucket gcra; do
  check "$a policy" "$(header /api/algorithms/$a RateLimit-Policy)" "\"$a\";q=5;w=3"     # 5, filled in 2.5 s
done
check "warm-up policy" "$(header /api/algorithms/warm-up RateLimit-Policy)" '"warm-up";q=5;w=1'
conc=$( (for _ in 1 2 3; do curl -s -o /dev/null -w '%{http_code}\n' "$BASE/api/algorithms/concurrency" & done; wait) | sort | tr '\n' ' ')
check "concurrency: 2 in flight" "${conc% }" "200 200 429"
check "jaxrs greeting (JAX-RS)" "$(curl -s "$BASE/api/jaxrs/greeting")" "Hello from JAX-RS!"
check "jaxrs greeting limited" "$(header /api/jaxrs/greeting RateLimit-Policy)" '"jaxrs-greeting";q=3;w=10'
echo "check-demo: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
