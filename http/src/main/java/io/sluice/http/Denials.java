package io.sluice.http;

import io.sluice.core.Decision;
import io.sluice.core.RuleOutcome;
import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.Outcome;
import io.sluice.http.Responder.BodyFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The denials of a {@link Responder}: 429 when a rule denies, 503 while the store is unavailable or the front door
 * shuts down. Each has {@code Retry-After}, {@code Cache-Control: no-store}, the configured extra headers and a body in
 * the configured format: the error envelope or RFC 9457 problem details, holding rule names and numbers only, never
 * the key or anything from the request.
 */
final class Denials {

    private static final Set<String> OWN_HEADERS = Set.of("retry-after", "cache-control", "content-type",
            "content-length", "ratelimit", "ratelimit-policy", "x-ratelimit-limit", "x-ratelimit-remaining",
            "x-ratelimit-reset");
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    private static final Pattern VALUE = Pattern.compile("[\\t\\x20-\\x7e\\x80-\\xff]*");

    private final BodyFormat bodyFormat;
    private final List<Reply.Header> denyHeaders;

    Denials(BodyFormat bodyFormat, List<Reply.Header> denyHeaders) {
        this.bodyFormat = bodyFormat;
        this.denyHeaders = denyHeaders;
    }

    /**
     * @return a header to add to every denial: {@link Responder.Builder#denyHeader}
     * @throws ConfigException for an invalid name or value, or a header Sluice sets itself
     */
    static Reply.Header denyHeader(String name, String value) {
        if (name == null || !TOKEN.matcher(name).matches()) {
            throw new ConfigException("deny-headers", name, "expected a header name such as \"Access-Control-Allow-Origin\"");
        }
        if (OWN_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
            throw new ConfigException("deny-headers", name, "Sluice sets this header itself; expected another header");
        }
        if (value == null || !VALUE.matcher(value).matches()) {
            throw new ConfigException("deny-headers", name + ": " + value, "expected a value without line breaks");
        }
        return new Reply.Header(name, value.trim(), true);
    }

    /**
     * @param headers the rate-limit headers of the binding rule, to which the denial's are added
     * @return 429: a rule denied {@code decision}
     */
    Reply quotaExceeded(List<Reply.Header> headers, Decision decision, long nowMicros) {
        long retryMicros = decision.retryAfterMicros();
        long retrySeconds = Math.max(1, Responder.seconds(retryMicros));
        denialHeaders(headers, retrySeconds);
        RuleOutcome binding = decision.binding();
        Outcome o = binding.outcome();
        String message = o.never()
                ? "Request quota exceeded. This request costs more than the quota allows, so retrying cannot help."
                : "Request quota exceeded. Wait " + words(retrySeconds) + " and try again.";
        return switch (bodyFormat) {
            case ENVELOPE -> new Reply(false, 429, headers, "application/json", "{\"error\":{\"code\":\"rate_limited\","
                    + "\"message\":" + quote(message) + ",\"context\":{\"renewal\":" + renewalMillis(nowMicros, retryMicros)
                    + ",\"policy\":" + quote(binding.rule().name()) + ",\"limit\":" + o.limit()
                    + ",\"remaining\":" + o.remaining() + "}}}");
            case PROBLEM -> new Reply(false, 429, headers, "application/problem+json", "{\"type\":"
                    + quote(Responder.QUOTA_EXCEEDED) + ",\"title\":\"Quota Exceeded\",\"status\":429,\"detail\":"
                    + quote(message) + ",\"violated-policies\":" + names(decision, RuleOutcome::denies) + "}");
            case NONE -> new Reply(false, 429, headers, null, null);
        };
    }

    /** @return 503: a rule denied {@code decision} while the store is unavailable */
    Reply unavailable(Decision decision, long nowMicros) {
        List<Reply.Header> headers = new ArrayList<>();
        long retryMicros = decision.retryAfterMicros();
        long retrySeconds = Math.max(1, Responder.seconds(retryMicros));
        denialHeaders(headers, retrySeconds);
        String message = "The rate limiter is temporarily unavailable. Wait " + words(retrySeconds) + " and try again.";
        return switch (bodyFormat) {
            case ENVELOPE -> new Reply(false, 503, headers, "application/json",
                    "{\"error\":{\"code\":\"rate_limit_unavailable\",\"message\":" + quote(message)
                    + ",\"context\":{\"renewal\":" + renewalMillis(nowMicros, retryMicros) + ",\"policy\":"
                    + quote(decision.binding().rule().name()) + "}}}");
            case PROBLEM -> new Reply(false, 503, headers, "application/problem+json", "{\"type\":"
                    + quote(Responder.REDUCED_CAPACITY) + ",\"title\":\"Temporary Reduced Capacity\",\"status\":503,"
                    + "\"detail\":" + quote(message) + ",\"violated-policies\":"
                    + names(decision, o -> o.source() == RuleOutcome.Source.FAILURE_DENIED) + "}");
            case NONE -> new Reply(false, 503, headers, null, null);
        };
    }

    /** @return 503: the front door shuts down; see {@link Responder#shuttingDown} */
    Reply shuttingDown(long nowMicros) {
        long retrySeconds = Responder.SHUTTING_DOWN_RETRY_SECONDS;
        List<Reply.Header> headers = new ArrayList<>(2 + denyHeaders.size());
        denialHeaders(headers, retrySeconds);
        String message = "The service is shutting down. Wait " + words(retrySeconds) + " and try again.";
        return switch (bodyFormat) {
            case ENVELOPE -> new Reply(false, 503, headers, "application/json",
                    "{\"error\":{\"code\":\"shutting_down\",\"message\":" + quote(message) + ",\"context\":{\"renewal\":"
                    + renewalMillis(nowMicros, retrySeconds * 1_000_000) + "}}}");
            case PROBLEM -> new Reply(false, 503, headers, "application/problem+json", "{\"type\":\"about:blank\","
                    + "\"title\":\"Service Unavailable\",\"status\":503,\"detail\":" + quote(message) + "}");
            case NONE -> new Reply(false, 503, headers, null, null);
        };
    }

    private void denialHeaders(List<Reply.Header> headers, long retrySeconds) {
        headers.add(new Reply.Header("Retry-After", Numbers.text(retrySeconds)));
        headers.add(new Reply.Header("Cache-Control", "no-store"));
        headers.addAll(denyHeaders);
    }

    private static long renewalMillis(long nowMicros, long retryMicros) {
        return Responder.ceilDiv(nowMicros + Responder.stated(retryMicros), 1_000);
    }

    /** The wait in words, rounded up to the unit shown: 1 second, 45 seconds, 3 minutes, 2 hours, 4 days. */
    static String words(long seconds) {
        if (seconds < 60) {
            return plural(seconds, "second");
        }
        long minutes = Responder.ceilDiv(seconds, 60);
        if (minutes < 60) {
            return plural(minutes, "minute");
        }
        long hours = Responder.ceilDiv(seconds, 3_600);         // 59 min 1 s rounds up to "1 hour", not "60 minutes"
        if (hours < 24) {
            return plural(hours, "hour");
        }
        return plural(Responder.ceilDiv(seconds, 86_400), "day");
    }

    private static String plural(long n, String unit) {
        return n + " " + unit + (n == 1 ? "" : "s");
    }

    private static String names(Decision decision, Predicate<RuleOutcome> which) {
        StringBuilder s = new StringBuilder("[");
        for (RuleOutcome o : decision.outcomes()) {
            if (which.test(o)) {
                s.append(s.length() > 1 ? "," : "").append(quote(o.rule().name()));
            }
        }
        return s.append(']').toString();
    }

    private static String quote(String s) {
        return RateLimitFields.quote(s);
    }
}
