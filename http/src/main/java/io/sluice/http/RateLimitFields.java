package io.sluice.http;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.Rule;
import java.math.BigInteger;
import java.util.Locale;

/**
 * The text of the {@code RateLimit-Policy} and {@code RateLimit} fields a {@link Responder} sends: a rule's name and
 * quota ({@code "per-ip";q=100;w=60}), formatted once per rule, policy and limit and kept in a small cache, and the
 * effective window of draft -11 that {@code t} states.
 */
final class RateLimitFields {

    private static final BigInteger MAX_SF_INTEGER = BigInteger.valueOf(999_999_999_999_999L);

    private final Formatted[] formatted = new Formatted[16];

    /**
     * The effective window of draft -11, in microseconds: the time within which the client can use no more than the
     * outcome's {@code remaining}; -1 when there is none to state (a concurrency limit, whose room comes back when
     * requests complete, not after a time). Never more than the retry time of a denial, so that {@code Retry-After}
     * (the retry time) is never earlier than its end.
     *
     * @param waitMicros the reset time when allowed, the retry time when denied (draft -10's {@code t})
     */
    static long effectiveWindow(Policy policy, Outcome o, boolean allowed, long waitMicros) {
        Algorithm algorithm = policy.algorithm();
        if (algorithm.concurrent()) {
            return -1;
        }
        if (algorithm != Algorithm.GCRA && algorithm != Algorithm.TOKEN_BUCKET && algorithm != Algorithm.LEAKY_BUCKET) {
            return waitMicros;      // fixed window and warm-up exactly; the sliding ones an upper bound when allowed
        }
        // a bucket of capacity C gets one unit back every interval I: with r < C units left and the bucket full again
        // after R, the next unit is back after R - (C - r - 1) * I (GCRA and the leaky bucket drain continuously,
        // the token bucket refills in whole tokens from its last refill: the same sum); a full one after I
        long interval = policy.intervalMicros();
        long capacity = o.limit();
        long reset = o.resetAfterMicros();
        long window;
        if (o.remaining() >= capacity) {
            window = interval;
        } else {
            long missing = capacity - o.remaining() - 1;              // below 2^52 / I, so the product cannot overflow
            window = reset - missing * interval;
            if (window <= 0 || window > reset) {
                window = Math.min(reset, interval);                     // numbers that do not fit the model: stay safe
            }
        }
        return allowed ? window : Math.min(window, waitMicros);
    }

    /**
     * The text of a rule's headers that depends only on the rule, its policy and the limit, formatted once:
     * {@code RateLimit-Policy} (without {@code pk}), the start of {@code RateLimit} and {@code X-RateLimit-Limit}.
     * Immutable (final fields), so it is shared between threads through the plain array {@code formatted} safely.
     */
    static final class Formatted {
        final Rule rule;
        final Policy policy;
        final long limit;
        /** {@code "per-ip";q=100;w=60} */
        final String policyField;
        /** {@code "per-ip";r=} */
        final String rateLimitPrefix;
        /** {@code 100} */
        final String limitText;

        Formatted(Rule rule, Policy policy, long limit) {
            this.rule = rule;
            this.policy = policy;
            this.limit = limit;
            String name = quote(rule.name());
            this.policyField = name + quota(policy, limit);
            this.rateLimitPrefix = name + ";r=";
            this.limitText = Long.toString(limit);
        }

        boolean isFor(Rule r, Policy p, long l) {
            // the local fallback builds its share's policy per request: equal policies share the text too
            return rule == r && limit == l && (policy == p || policy.equals(p));
        }
    }

    /**
     * @return the constant text of {@code rule}'s headers: from a small cache indexed by rule name (rules and policies
     *     are immutable; a reload brings new instances, which replace the old ones' slots)
     */
    Formatted formatted(Rule rule, Policy policy, long limit) {
        int slot = rule.name().hashCode() & (formatted.length - 1);
        Formatted f = formatted[slot];
        if (f == null || !f.isFor(rule, policy, limit)) {
            f = new Formatted(rule, policy, limit);
            formatted[slot] = f;          // a benign race: whichever write wins, every entry is complete and checked
        }
        return f;
    }

    /**
     * {@code ;q=100;w=60}; a period of whole seconds is stated as is, another one scaled to the next whole second. A
     * bucket with a burst ({@code 5/10s burst 20}: GCRA, token and leaky bucket, whose {@code limit} here is the
     * capacity) is stated as its capacity over the time it takes to fill from empty, rounded up to whole seconds
     * ({@code q=20;w=40}; {@code 2/1s burst 5}: {@code q=5;w=3}): the sustained rate or a little less, and {@code r}
     * (what is left of the capacity) and {@code t} (the time until it is full again) stay within {@code q} and
     * {@code w}. Stated over the policy's own period ({@code q=20;w=10}) it would claim four times the rate.
     */
    static String quota(Policy policy, long limit) {
        if (policy.algorithm() == Algorithm.CONCURRENCY) {
            return ";q=" + limit + ";qu=\"concurrent-requests\"";
        }
        if (limit == policy.capacity() && limit != policy.limit()) {     // a burst: only a bucket has a capacity of its own
            // capacity x interval is at most 2^52 µs (Policy checks it)
            return ";q=" + limit + ";w=" + Responder.ceilDiv(policy.capacity() * policy.intervalMicros(), 1_000_000);
        }
        long period = policy.periodMicros();
        if (period % 1_000_000 == 0) {
            return ";q=" + limit + ";w=" + period / 1_000_000;
        }
        long w = Responder.ceilDiv(period, 1_000_000);
        BigInteger q = BigInteger.valueOf(limit).multiply(BigInteger.valueOf(w * 1_000_000))
                .divide(BigInteger.valueOf(period));
        return ";q=" + q.min(MAX_SF_INTEGER) + ";w=" + w;        // structured-field integers have at most 15 digits
    }

    /** A JSON string, which is also a valid structured-field string for the rule names Sluice allows. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
