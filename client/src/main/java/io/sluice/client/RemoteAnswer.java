package io.sluice.client;

import java.time.DateTimeException;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/**
 * What one answer of a remote API says about its limit: how long the key is to pause (the remote's budget is spent),
 * and the strictest quota it publishes. Read, in this order of trust:
 * <ol>
 * <li>{@code 429}, or {@code 503} with {@code Retry-After}: the {@code Retry-After} (delay-seconds or an HTTP-date),
 *     else the other fields' reset; a 429 that states no usable time pauses {@link #DEFAULT_429_PAUSE_MICROS 1 s};
 * <li>{@code RateLimit} (draft -11 and -10: {@code "name";r=0;t=30}; a member with {@code r=0} pauses its {@code t}
 *     seconds, the longest such member wins; an older draft's {@code remaining=0, reset=30} as well);
 * <li>{@code X-RateLimit-Remaining: 0} with {@code X-RateLimit-Reset} as delta seconds, epoch seconds (from
 *     {@value #EPOCH_SECONDS_FROM}) or epoch milliseconds (from {@value #EPOCH_MILLIS_FROM}).
 * </ol>
 * {@code RateLimit-Policy} ({@code "name";q=100;w=60}) gives the quota: the member of least rate, concurrency quotas
 * ({@code qu="concurrent-requests"}) left out.
 *
 * <p><b>Bounded.</b> Every time is cut to the caller's cap ({@link #capped()} says so), a {@code Retry-After} of more
 * than 15 digits too (delay-seconds has no upper bound); negative numbers, other numbers of more than 15 digits, dates
 * that do not parse and fields longer than {@value StructuredList#MAX_LENGTH} characters are ignored, as if absent. A
 * date in the past, or a zero, pauses nothing.
 *
 * @param pauseMicros how long the key is to pause from now, at most the cap; 0: no pause
 * @param quota the published quota's permits, -1 when none was published
 * @param windowSeconds the published quota's window in seconds, -1 when none was published
 * @param capped whether the remote asked for a longer pause than the cap
 */
record RemoteAnswer(long pauseMicros, long quota, long windowSeconds, boolean capped) {

    /** A 429 that states no usable time pauses for this long: {@value} µs. */
    static final long DEFAULT_429_PAUSE_MICROS = 1_000_000;
    /** An {@code X-RateLimit-Reset} at least this large is an epoch second: {@value} (2001-09-09). */
    static final long EPOCH_SECONDS_FROM = 1_000_000_000L;
    /** An {@code X-RateLimit-Reset} at least this large is an epoch millisecond: {@value}. */
    static final long EPOCH_MILLIS_FROM = 1_000_000_000_000L;
    /** The longest {@code Retry-After} date read: {@value} characters (an IMF-fixdate has 29). */
    private static final int MAX_DATE_LENGTH = 64;
    /** The most digits of a number read: {@value} (a structured-field integer's). */
    private static final int MAX_DIGITS = 15;

    static final RemoteAnswer NOTHING = new RemoteAnswer(0, -1, -1, false);

    /**
     * @param status the response's status
     * @param nowMicros the client's clock, epoch microseconds
     * @param capMicros the longest pause, > 0
     */
    static RemoteAnswer read(int status, ResponseHeaders headers, long nowMicros, long capMicros) {
        long retryAfter = status == 429 || status == 503 ? retryAfter(headers.first("Retry-After"), nowMicros) : -1;
        long spent = retryAfter >= 0 ? retryAfter : spent(headers, nowMicros);
        if (status == 429 && spent <= 0) {
            spent = DEFAULT_429_PAUSE_MICROS;
        } else if (status == 503 && retryAfter < 0) {
            spent = 0;              // a 503 without Retry-After is an outage, not a limit
        }
        long pause = Math.max(0, Math.min(spent, capMicros));
        long[] quota = quota(headers.values("RateLimit-Policy"));
        boolean capped = spent > capMicros;
        return pause == 0 && quota[0] < 0 && !capped ? NOTHING : new RemoteAnswer(pause, quota[0], quota[1], capped);
    }

    /** @return the wait {@code Retry-After} states, in µs (0 for a date past); -1 when absent or invalid */
    static long retryAfter(String value, long nowMicros) {
        if (value == null) {
            return -1;
        }
        String v = value.trim();
        if (digits(v)) {                // delay-seconds (RFC 9110) has no upper bound: a longer one is the longest
            return micros(v.length() > MAX_DIGITS ? Long.MAX_VALUE : number(v));
        }
        if (v.length() > MAX_DATE_LENGTH) {
            return -1;
        }
        try {
            long at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
            return Math.max(0, Math.multiplyExact(at, 1000L) - nowMicros);
        } catch (DateTimeException | ArithmeticException e) {
            return -1;
        }
    }

    /** @return the wait until the budget the other fields say is spent comes back, in µs; 0 when they say none is */
    private static long spent(ResponseHeaders headers, long nowMicros) {
        long wait = 0;
        for (Map<String, String> m : StructuredList.parse(headers.values("RateLimit"))) {
            long r = number(m.get("r"));
            long t = number(m.get("t"));
            if (r == 0 && t > 0) {
                wait = Math.max(wait, micros(t));
            }
        }
        if (wait > 0) {
            return wait;
        }
        long legacy = dictionary(headers.first("RateLimit"));
        if (legacy > 0) {
            return legacy;
        }
        if (number(headers.first("X-RateLimit-Remaining")) != 0) {
            return 0;
        }
        return reset(number(headers.first("X-RateLimit-Reset")), nowMicros);
    }

    /** An older draft's {@code RateLimit: limit=100, remaining=0, reset=30}: the reset in µs when none remain. */
    private static long dictionary(String field) {
        if (field == null || field.length() > StructuredList.MAX_LENGTH || !field.contains("remaining=")) {
            return 0;
        }
        long remaining = -1;
        long reset = -1;
        String[] members = field.split(",", StructuredList.MAX_MEMBERS + 1);
        for (int k = 0; k < Math.min(members.length, StructuredList.MAX_MEMBERS); k++) {
            String m = members[k].trim();
            if (m.startsWith("remaining=")) {
                remaining = number(m.substring("remaining=".length()));
            } else if (m.startsWith("reset=")) {
                reset = number(m.substring("reset=".length()));
            }
        }
        return remaining == 0 && reset > 0 ? micros(reset) : 0;
    }

    /** @return the wait until {@code reset} (delta seconds, epoch seconds or epoch millis), in µs; 0 when invalid */
    private static long reset(long reset, long nowMicros) {
        if (reset <= 0) {
            return 0;
        }
        if (reset >= EPOCH_MILLIS_FROM) {
            return Math.max(0, reset * 1000 - nowMicros);
        }
        if (reset >= EPOCH_SECONDS_FROM) {
            return Math.max(0, reset * 1_000_000 - nowMicros);
        }
        return reset * 1_000_000;
    }

    /** @return {quota, window seconds} of the member of least rate; {-1, -1} when none */
    private static long[] quota(List<String> fields) {
        long[] best = {-1, -1};
        for (Map<String, String> m : StructuredList.parse(fields)) {
            long q = number(m.get("q"));
            long w = number(m.get("w"));
            if (q < 1 || w < 1 || m.containsKey("qu") && !"requests".equals(m.get("qu"))) {
                continue;
            }
            // q / w < best q / best w, compared without division: both below 10^15, so the products fit in a long
            // only up to 9.2 * 10^18; numbers past 10^9 are clamped first, which keeps the order of any rate a
            // server would state
            long cq = Math.min(q, 1_000_000_000L);
            long cw = Math.min(w, 1_000_000_000L);
            if (best[0] < 0 || cq * Math.min(best[1], 1_000_000_000L) < Math.min(best[0], 1_000_000_000L) * cw) {
                best[0] = q;
                best[1] = w;
            }
        }
        return best;
    }

    /** @return {@code seconds} in µs, {@link Long#MAX_VALUE} when that would not fit in a long */
    private static long micros(long seconds) {
        return seconds > Long.MAX_VALUE / 1_000_000 ? Long.MAX_VALUE : seconds * 1_000_000;
    }

    /** @return whether {@code text} is one or more decimal digits and nothing else */
    private static boolean digits(String text) {
        if (text.isEmpty()) {
            return false;
        }
        for (int k = 0; k < text.length(); k++) {
            char c = text.charAt(k);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** @return the non-negative decimal integer {@code text} is (at most 15 digits), else -1 */
    static long number(String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_DIGITS) {
            return -1;
        }
        long n = 0;
        for (int k = 0; k < text.length(); k++) {
            char c = text.charAt(k);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }
}
