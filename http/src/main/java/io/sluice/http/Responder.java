package io.sluice.http;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.Decision;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.RuleOutcome;
import io.sluice.core.config.ConfigException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Turns a {@link Decision} into headers, a status and a body, the same for every front door.
 *
 * <p><b>Headers</b> describe the binding rule (the one that denied, else the enforced one with least remaining), in
 * the fields of draft-ietf-httpapi-ratelimit-headers-11 and/or the common {@code X-RateLimit-*} ones. With {@code t}
 * the effective window of draft -11 in whole seconds rounded up (see {@link HeaderDraft}: the seconds within which
 * the client can use no more than {@code r}; {@link HeaderDraft#DRAFT_10} keeps the reset time when allowed, the
 * retry time when denied):
 *
 * <pre>
 * RateLimit-Policy: "per-ip";q=100;w=60          q = limit, w = period in seconds
 * RateLimit: "per-ip";r=42;t=17                  r = remaining
 * X-RateLimit-Limit: 100
 * X-RateLimit-Remaining: 42
 * X-RateLimit-Reset: 1700000017                   epoch seconds of now + t (or t itself: ResetFormat.DELTA_SECONDS)
 * </pre>
 *
 * A concurrency policy has {@code qu="concurrent-requests"} and no {@code w}. A period that is not whole seconds is
 * advertised over the next whole second: {@code 5/500ms} is {@code q=10;w=1}. No rate-limit headers are sent when only
 * shadow rules applied, or while the store is unavailable (the numbers would be invented). With
 * {@link Builder#partitionKey(boolean)} both fields carry {@code pk=:...:}, the first 16 bytes of SHA-256 of the
 * rule name and key: never the key itself.
 *
 * <p><b>Denied</b>: {@code 429}, {@code Retry-After} the retry time in whole seconds rounded up, at least 1 (and
 * never earlier than the end of {@code t}, which is at most the retry time),
 * {@code Cache-Control: no-store}, the configured extra headers, and a body: the error envelope
 * {@code {"error":{"code":"rate_limited","message":"Request quota exceeded. Wait 3 minutes and try again.",
 * "context":{"renewal":1700000180000,"policy":"per-ip","limit":100,"remaining":0}}}} ({@code renewal}: epoch
 * milliseconds when the request may pass), or RFC 9457 {@code application/problem+json} of type
 * {@value #QUOTA_EXCEEDED}. The body holds the rule name and numbers only, never the key or anything from the request.
 *
 * <p><b>Store unavailable</b> (a rule denies while the store is down): {@code 503} with {@code Retry-After}, code
 * {@code rate_limit_unavailable} or problem type {@value #REDUCED_CAPACITY}; never 429 or 500.
 *
 * <p><b>Shutting down</b> ({@link #shuttingDown}: a front door that is stopping answers the requests it still holds
 * queued, or receives and would queue): {@code 503} with {@code Retry-After: }{@value #SHUTTING_DOWN_RETRY_SECONDS}, code
 * {@code shutting_down} or problem type {@code about:blank} ({@code "title":"Service Unavailable"}).
 *
 * <p><b>Never</b>: a request that can never pass ({@link Outcome#NEVER}, a cost above capacity) is denied with every
 * wait capped at {@value #MAX_WAIT_SECONDS} seconds (366 days, the longest period a policy may have), and a message
 * saying that retrying cannot help. No number overflows.
 */
public final class Responder {

    /** The problem type of a denied request (draft-ietf-httpapi-ratelimit-headers-11, section 5.1). */
    public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";
    /** The problem type while the store is unavailable (draft-ietf-httpapi-ratelimit-headers-11, section 5.2). */
    public static final String REDUCED_CAPACITY =
            "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";
    /**
     * The wait headers and body state for a request that can never pass ({@link Outcome#NEVER}), in seconds: {@value}
     * (366 days). Any other wait is stated as it is: a bucket's can be longer (a cost of 20 on {@code 10/366d burst 20}
     * right after another waits 732 days), and a shorter one would send the client back too early.
     */
    public static final long MAX_WAIT_SECONDS = 366L * 86_400;

    /**
     * The {@code Retry-After} of {@link #shuttingDown}, in seconds: {@value}. Short: behind a load balancer the retry
     * may reach another instance, or this one once the application is deployed again; how long a stop takes is not
     * known to the front door.
     */
    public static final long SHUTTING_DOWN_RETRY_SECONDS = 1;

    private static final long MAX_WAIT_MICROS = MAX_WAIT_SECONDS * 1_000_000;

    /** Which rate-limit header fields to send. */
    public enum HeaderStyle {
        /** {@code RateLimit-Policy} and {@code RateLimit}. */
        IETF,
        /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset}. */
        LEGACY,
        /** Both sets. */
        BOTH,
        /** No rate-limit headers ({@code Retry-After} is still sent when denied). */
        NONE
    }

    /**
     * Which revision's meaning {@code t} of the {@code RateLimit} field has ({@code header-draft=11|10}). The letters
     * are the same in both; only {@code t} differs, and only for some algorithms. {@code X-RateLimit-Reset} and
     * {@code Retry-After} are the same in both.
     *
     * <table>
     * <caption>{@code t} per algorithm</caption>
     * <tr><th>algorithm</th><th>{@link #DRAFT_11}: the effective window</th><th>{@link #DRAFT_10}</th></tr>
     * <tr><td>fixed-window</td><td>until the window ends</td><td>the same</td></tr>
     * <tr><td>gcra, token-bucket, leaky-bucket</td><td>until the next unit comes back ({@code r} below the
     *     capacity), or one emission interval (a full bucket); denied: the same, at most the retry time</td>
     *     <td>until the bucket is full again; denied: the retry time</td></tr>
     * <tr><td>sliding-window, sliding-log</td><td>until the key is back to full (an upper bound: quota may come back
     *     sooner, one expired entry or a decaying count at a time); denied: the retry time</td><td>the same</td></tr>
     * <tr><td>warm-up</td><td>until the next request may pass</td><td>the same</td></tr>
     * <tr><td>concurrency, adaptive-concurrency</td><td>never sent: room comes back when requests complete, not
     *     after a time</td><td>not sent when allowed (adaptive: {@code t=0}); denied: the retry time (when the oldest
     *     lease times out)</td></tr>
     * </table>
     */
    public enum HeaderDraft {
        /** draft-ietf-httpapi-ratelimit-headers-11: {@code t} is the effective window. The default. */
        DRAFT_11,
        /** draft -10, as Sluice sent it up to 1.x: {@code t} is the reset time when allowed, the retry time when denied. */
        DRAFT_10
    }

    /** The body of a denied request. */
    public enum BodyFormat {
        /** {@code {"error":{"code":"rate_limited","message":...,"context":{...}}}}, {@code application/json}. */
        ENVELOPE,
        /** RFC 9457 {@code application/problem+json}. */
        PROBLEM,
        /** No body. */
        NONE
    }

    /** What {@code X-RateLimit-Reset} holds. */
    public enum ResetFormat {
        /** The epoch second at which the wait ends: {@code 1700000017}. */
        EPOCH_SECONDS,
        /** The wait in seconds: {@code 17}. */
        DELTA_SECONDS
    }

    private final HeaderStyle headerStyle;
    private final BodyFormat bodyFormat;
    private final ResetFormat resetFormat;
    private final HeaderDraft headerDraft;
    private final boolean partitionKey;
    private final List<Reply.Header> denyHeaders;
    private final Denials denials;
    private final RateLimitFields fields = new RateLimitFields();

    private Responder(Builder b) {
        this.headerStyle = b.headerStyle;
        this.bodyFormat = b.bodyFormat;
        this.resetFormat = b.resetFormat;
        this.headerDraft = b.headerDraft;
        this.partitionKey = b.partitionKey;
        this.denyHeaders = List.copyOf(b.denyHeaders);
        this.denials = new Denials(bodyFormat, denyHeaders);
    }

    /** @return a builder with the defaults: both header styles, the error envelope, epoch-second resets, no pk */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * @param decision the engine's decision
     * @param request the request (read only to compute {@code pk} when enabled)
     * @param nowMicros the time of the decision, for epoch values ({@code X-RateLimit-Reset}, {@code renewal})
     */
    public Reply reply(Decision decision, RequestView request, long nowMicros) {
        if (decision.storeUnavailable()) {
            return denials.unavailable(decision, nowMicros);
        }
        List<Reply.Header> headers = new ArrayList<>(decision.allowed() ? 5 : 6 + denyHeaders.size());
        HeaderSink toList = (name, value) -> headers.add(new Reply.Header(name, value));
        RuleOutcome binding = decision.binding();
        if (binding != null && reported(binding)) {
            Outcome o = binding.outcome();
            long waitMicros = decision.allowed() ? o.resetAfterMicros() : o.retryAfterMicros();
            rateLimitHeaders(toList, binding, decision.allowed(), waitMicros, request, nowMicros);
        }
        if (decision.allowed()) {
            return new Reply(true, 0, headers, null, null);
        }
        return denials.quotaExceeded(headers, decision, nowMicros);
    }

    /**
     * The answer to a request that a stopping front door still holds or receives (a servlet filter being destroyed: the
     * application is undeployed or the container stops): {@code 503}, {@code Retry-After: }
     * {@value #SHUTTING_DOWN_RETRY_SECONDS}, {@code Cache-Control: no-store}, the configured extra headers, and the
     * configured body: code {@code shutting_down}, or problem type {@code about:blank} with title
     * {@code Service Unavailable}. Nothing of the request is in it.
     *
     * @param nowMicros now, for the envelope's {@code renewal}
     */
    public Reply shuttingDown(long nowMicros) {
        return denials.shuttingDown(nowMicros);
    }

    private static boolean reported(RuleOutcome o) {
        return !o.rule().shadow()
                && (o.source() == RuleOutcome.Source.STORE || o.source() == RuleOutcome.Source.LOCAL_FALLBACK);
    }

    /**
     * The headers of an allowed decision, without building a {@link Reply}: adds to {@code sink}, in order, exactly
     * the headers {@link #reply} would hold. The servlet filter's path for every admitted request.
     *
     * @throws IllegalArgumentException when {@code decision} is not allowed (use {@link #reply})
     */
    public void allowedHeaders(Decision decision, RequestView request, long nowMicros, HeaderSink sink) {
        if (!decision.allowed()) {
            throw new IllegalArgumentException("a denied decision needs a reply: status, headers and body");
        }
        RuleOutcome binding = decision.binding();
        if (binding != null && reported(binding)) {
            rateLimitHeaders(sink, binding, true, binding.outcome().resetAfterMicros(), request, nowMicros);
        }
    }

    /** Receives response headers, in order; a name may repeat. */
    @FunctionalInterface
    public interface HeaderSink {
        /** Adds one header field. */
        void add(String name, String value);
    }

    private void rateLimitHeaders(HeaderSink headers, RuleOutcome b, boolean allowed, long waitMicros,
            RequestView request, long nowMicros) {
        Outcome o = b.outcome();
        // an admitted concurrency limit has no reset: its room comes back when a request completes, so neither t
        // (optional in the draft) nor X-RateLimit-Reset is sent; "t=0" would say the quota is back in full now
        boolean timed = waitMicros > 0 || b.policy().algorithm() != Algorithm.CONCURRENCY;
        RateLimitFields.Formatted f = formatted(b.rule(), b.policy(), o.limit());
        String remaining = Numbers.text(o.remaining());        // formatted once for both styles
        if (headerStyle == HeaderStyle.IETF || headerStyle == HeaderStyle.BOTH) {
            String rateLimit;
            if (headerDraft == HeaderDraft.DRAFT_10) {
                rateLimit = timed ? f.rateLimitPrefix + remaining + ";t=" + seconds(waitMicros)
                        : f.rateLimitPrefix + remaining;
            } else {
                long window = RateLimitFields.effectiveWindow(b.policy(), o, allowed, waitMicros);
                rateLimit = window < 0 ? f.rateLimitPrefix + remaining
                        : f.rateLimitPrefix + remaining + ";t=" + seconds(window);
            }
            if (partitionKey) {
                String pk = ";pk=:" + partitionKey(b.rule(), request) + ":";
                headers.add("RateLimit-Policy", f.policyField + pk);
                headers.add("RateLimit", rateLimit + pk);
            } else {
                headers.add("RateLimit-Policy", f.policyField);
                headers.add("RateLimit", rateLimit);
            }
        }
        if (headerStyle == HeaderStyle.LEGACY || headerStyle == HeaderStyle.BOTH) {
            headers.add("X-RateLimit-Limit", f.limitText);
            headers.add("X-RateLimit-Remaining", remaining);
            if (timed) {
                long reset = resetFormat == ResetFormat.DELTA_SECONDS ? seconds(waitMicros)
                        : ceilDiv(nowMicros + stated(waitMicros), 1_000_000);
                headers.add("X-RateLimit-Reset", Numbers.text(reset));
            }
        }
    }

    /** @return the constant text of {@code rule}'s headers, as {@link RateLimitFields#formatted} keeps it */
    RateLimitFields.Formatted formatted(Rule rule, Policy policy, long limit) {
        return fields.formatted(rule, policy, limit);
    }

    /** @return whole seconds, rounded up; {@value #MAX_WAIT_SECONDS} for {@link Outcome#NEVER} */
    static long seconds(long micros) {
        return ceilDiv(stated(micros), 1_000_000);
    }

    /**
     * The wait as headers and body state it: {@link Outcome#NEVER} as 366 days, any other as it is, at most 2^53 µs
     * (285 years; a policy's spans stay below 2^52) so that no sum with the time overflows.
     */
    static long stated(long micros) {
        return micros == Outcome.NEVER ? MAX_WAIT_MICROS : Math.min(micros, Policy.MAX_EXACT_MICROS);
    }

    private static String partitionKey(Rule rule, RequestView request) {
        return PartitionKey.of(rule, request);
    }

    /** @return {@code a / b} rounded up, for {@code b > 0} */
    static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }

    @Override
    public String toString() {
        return "headers=" + lower(headerStyle) + (partitionKey ? " with pk" : "") + ", header-draft="
                + (headerDraft == HeaderDraft.DRAFT_11 ? "11" : "10") + ", reset-format=" + lower(resetFormat)
                + ", body=" + lower(bodyFormat) + ", deny-headers=" + denyHeaders.stream().map(Reply.Header::name).toList();
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Builds a {@link Responder}. */
    public static final class Builder {
        private HeaderStyle headerStyle = HeaderStyle.BOTH;
        private BodyFormat bodyFormat = BodyFormat.ENVELOPE;
        private ResetFormat resetFormat = ResetFormat.EPOCH_SECONDS;
        private HeaderDraft headerDraft = HeaderDraft.DRAFT_11;
        private boolean partitionKey;
        private final List<Reply.Header> denyHeaders = new ArrayList<>();

        Builder() {}

        /** Which rate-limit headers to send (default both). */
        public Builder headers(HeaderStyle style) {
            this.headerStyle = style;
            return this;
        }

        /** The body of a denied request (default the error envelope). */
        public Builder body(BodyFormat format) {
            this.bodyFormat = format;
            return this;
        }

        /** What {@code X-RateLimit-Reset} holds (default epoch seconds). */
        public Builder reset(ResetFormat format) {
            this.resetFormat = format;
            return this;
        }

        /** Which draft's meaning {@code t} has (default {@link HeaderDraft#DRAFT_11}, the effective window). */
        public Builder headerDraft(HeaderDraft draft) {
            this.headerDraft = java.util.Objects.requireNonNull(draft, "draft");
            return this;
        }

        /** Whether the IETF fields carry {@code pk}, a hash of rule and key (default false). */
        public Builder partitionKey(boolean on) {
            this.partitionKey = on;
            return this;
        }

        /**
         * Adds a header to every denied response (429 and 503), such as {@code Access-Control-Allow-Origin: *} so that
         * browser clients can read the denial.
         *
         * @throws ConfigException for an invalid name or value, or a header Sluice sets itself
         */
        public Builder denyHeader(String name, String value) {
            denyHeaders.add(Denials.denyHeader(name, value));
            return this;
        }

        /** @return the responder; immutable and thread-safe */
        public Responder build() {
            return new Responder(this);
        }
    }
}
