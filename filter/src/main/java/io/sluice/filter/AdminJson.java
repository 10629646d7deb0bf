package io.sluice.filter;

import io.sluice.core.Rule;
import io.sluice.core.StoreHealth;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/** The admin endpoint's JSON: its answers, and strings escaped completely (or, when quoting a request, bounded). */
final class AdminJson {

    /** The most characters of a request's value an answer quotes: {@value}. */
    private static final int ECHO_CHARACTERS = 200;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private AdminJson() {}

    /** Answers {@code status} with {@code body} as JSON, not to be cached. */
    static void send(HttpServletResponse response, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setHeader("Cache-Control", "no-store");
        response.setContentType("application/json");
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }

    /**
     * Answers 200 with the JSON {@code write} writes, streamed: a long answer (an audit trail quoting documents) is
     * never held whole in memory.
     */
    static void stream(HttpServletResponse response, Body write) throws IOException {
        response.setStatus(200);
        response.setHeader("Cache-Control", "no-store");
        response.setContentType("application/json");
        Writer out = new BufferedWriter(new OutputStreamWriter(response.getOutputStream(), StandardCharsets.UTF_8),
                8192);
        write.to(out);
        out.flush();
    }

    /** Writes an answer's JSON. */
    @FunctionalInterface
    interface Body {
        void to(Writer out) throws IOException;
    }

    /** Answers {@code status} with {@code {"error": message}}. */
    static void error(HttpServletResponse response, int status, String message) throws IOException {
        send(response, status, "{\"error\":" + string(message) + "}");
    }

    /**
     * @return {@code s} as a JSON string, quoted, escaped whole: quotes, backslashes, control characters and anything
     *     outside printable ASCII as {@code \\uXXXX} (a surrogate pair as two), so the answer is ASCII; null as
     *     {@code null}
     */
    static String string(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        escape(s, out, Integer.MAX_VALUE);
        return out.append('"').toString();
    }

    /**
     * @return what a request sent, escaped as {@link #string} does, without quotes, cut after about
     *     {@value #ECHO_CHARACTERS} characters: an error quoting a hostile parameter stays small; null as empty
     */
    static String echo(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        escape(s, out, ECHO_CHARACTERS);
        return out.toString();
    }

    /** @return epoch milliseconds as an ISO-8601 instant, quoted; {@code null} for 0 (none) */
    static String instant(long millis) {
        return millis == 0 ? "null" : "\"" + Instant.ofEpochMilli(millis) + "\"";
    }

    /**
     * @return the store's health as the status shows it: {@code {"state":"up"|"failing","since":instant|null,
     *     "failingForMillis":n,"outageDecisions":n,"failureModeDecisions":n,"failing":{"allow":[...],"deny":[...],
     *     "local":[...]}}}, the lists empty while the store is up
     */
    static String store(StoreHealth health, long nowMicros) {
        StringBuilder failing = new StringBuilder("{");
        for (Rule.FailureMode mode : Rule.FailureMode.values()) {
            List<String> names = health.failing(mode);
            failing.append(failing.length() > 1 ? "," : "").append(string(mode.name().toLowerCase(Locale.ROOT)))
                    .append(":[");
            for (int i = 0; i < names.size(); i++) {
                failing.append(i == 0 ? "" : ",").append(string(names.get(i)));
            }
            failing.append(']');
        }
        failing.append('}');
        long since = health.failingSinceMicros();
        return "{\"state\":" + (health.up() ? "\"up\"" : "\"failing\"") + ",\"since\":"
                + (health.up() ? "null" : "\"" + Instant.ofEpochMilli(Math.floorDiv(since, 1_000)) + "\"")
                + ",\"failingForMillis\":" + (health.up() ? 0 : Math.max(0, nowMicros - since) / 1_000)
                + ",\"outageDecisions\":" + health.outageDecisions() + ",\"failureModeDecisions\":"
                + health.failureModeDecisions() + ",\"failing\":" + failing + "}";
    }

    private static void escape(String s, StringBuilder out, int max) {
        for (int i = 0; i < s.length() && out.length() <= max; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        out.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xf]).append(HEX[(c >> 4) & 0xf])
                                .append(HEX[c & 0xf]);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
    }
}
