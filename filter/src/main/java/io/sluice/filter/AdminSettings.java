package io.sluice.filter;

import io.sluice.core.Operations;
import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.store.AuditEntry;
import io.sluice.core.store.KeyOverride;
import io.sluice.core.store.SharedDocument;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.store.StaleVersionException;
import io.sluice.http.Administration;
import io.sluice.http.FrontDoor;
import io.sluice.http.RuleOrigin;
import io.sluice.http.internal.ContentType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The admin endpoint's sub-paths ({@link AdminServlet} checked the caller, the path and the method):
 *
 * <ul>
 *   <li>{@code GET /rules}: the shared rules document, {@code application/yaml}, its version as
 *       {@code ETag: "<version>"}; 404 JSON (with the version) when there is none.</li>
 *   <li>{@code PUT /rules}: replaces it with the body (YAML, a rules file's schema, at most
 *       {@value SharedSettings#MAX_DOCUMENT_BYTES} bytes of UTF-8: 413 beyond), when {@code If-Match: "<version>"}
 *       still names the version in the store (412 otherwise, with the current one; without {@code If-Match} whatever is
 *       there is replaced; {@code If-Match: *} only when there is one): 200 {@code {"version":N}}. An invalid document,
 *       or one this node's rules and checks refuse, is 400 with why, and nothing is written. The body must be
 *       {@code Content-Type: application/yaml} ({@code application/x-yaml}, {@code text/yaml} and {@code text/x-yaml}
 *       also do; a charset parameter, if any, UTF-8), else 415, for an unknown charset and a header that is no
 *       media type too (read by {@link ContentType}): none of these is a type a browser sends cross-site without a
 *       CORS preflight, whereas {@code text/plain} is, so it is refused even though a form cannot send {@code PUT} (a proxy that turns a
 *       {@code POST} with a method-override header into a {@code PUT} must not open the way).</li>
 *   <li>{@code DELETE /rules}: removes the document (the local rules alone again), {@code If-Match} as for
 *       {@code PUT}: 204 with the version of the removal as {@code ETag}, 404 when there is none.</li>
 *   <li>{@code GET /overrides}: the overrides, as a JSON list.</li>
 *   <li>{@code PUT /overrides?rule=&key=|value=&policy=10000/1h[&for=7d]}: sets one: 200 with it; 400 for a policy of
 *       another algorithm or an invalid one or duration, 404 for an unknown rule, 409 when
 *       {@value SharedSettings#MAX_OVERRIDES} hold already.</li>
 *   <li>{@code DELETE /overrides?rule=&key=|value=}: 204; 404 when the key has none.</li>
 *   <li>{@code GET /audit[?max=100]}: the newest entries (1 to {@value #MAX_AUDIT}), newest first: {@code id},
 *       {@code at} (ISO-8601), {@code who}, {@code action} ({@link AuditEntry.Action}: {@code RULES_REPLACED},
 *       {@code OVERRIDE_SET}, {@code OVERRIDE_REMOVED}, {@code KEY_RESET}), {@code rule}, {@code key} (as kept at
 *       rest), {@code value}, {@code previous} (a replaced document's whole text).</li>
 *   <li>{@code GET /status}: this node's {@link Operations.Status}; the rules in force with where each comes from
 *       and its failure mode; and the store's {@link io.sluice.core.StoreHealth}: up, or failing since when, with the
 *       rules answering by each failure mode.</li>
 * </ul>
 *
 * <p>Each change is recorded in the audit trail with the caller's principal. A {@code StoreException} goes up to the
 * servlet, which answers 503.
 */
final class AdminSettings {

    /** The most audit entries one answer holds: {@value}. */
    static final int MAX_AUDIT = 1_000;
    /** The audit entries an answer holds unless {@code max} says: {@value}. */
    static final int DEFAULT_AUDIT = 100;
    /** The media types a rules document is accepted in. */
    private static final Set<String> YAML = Set.of("application/yaml", "application/x-yaml", "text/yaml",
            "text/x-yaml");
    private static final Pattern ETAG = Pattern.compile("\"([0-9]{1,18})\"");
    /** The most of a body too large that is read (and dropped) before the 413: {@value} bytes. */
    private static final int DRAIN_BYTES = SharedSettings.MAX_DOCUMENT_BYTES;
    /** {@link #expectedVersion}'s answer when it answered the request itself. */
    private static final long ANSWERED = Long.MIN_VALUE;

    private AdminSettings() {}

    static void readRules(FrontDoor door, HttpServletResponse response) throws IOException {
        SharedDocument d = door.admin().sharedRules();
        if (!d.present()) {
            AdminJson.send(response, 404, "{\"error\":\"no shared rules document: the local rules alone\",\"version\":"
                    + d.version() + "}");
            return;
        }
        byte[] bytes = d.text().getBytes(StandardCharsets.UTF_8);
        response.setStatus(200);
        response.setHeader("ETag", etag(d.version()));
        response.setContentType("application/yaml;charset=utf-8");
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }

    static void replaceRules(FrontDoor door, HttpServletRequest request, HttpServletResponse response, String who)
            throws IOException {
        String unsupported = unsupported(request.getHeader("Content-Type"));
        if (unsupported != null) {
            AdminJson.error(response, 415, unsupported);
            return;
        }
        long expected = expectedVersion(door.admin(), request, response);
        if (expected == ANSWERED) {
            return;
        }
        long declared = request.getContentLengthLong();
        if (declared > SharedSettings.MAX_DOCUMENT_BYTES) {
            refuseBody(request, declared <= SharedSettings.MAX_DOCUMENT_BYTES + DRAIN_BYTES, response);
            return;
        }
        byte[] body = request.getInputStream().readNBytes(SharedSettings.MAX_DOCUMENT_BYTES + 1);  // bounded
        if (body.length > SharedSettings.MAX_DOCUMENT_BYTES) {
            refuseBody(request, true, response);
            return;
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
        } catch (CharacterCodingException e) {
            AdminJson.error(response, 400, "expected a body of UTF-8 text");
            return;
        }
        write(door.admin(), text, expected, who, response);
    }

    static void removeRules(FrontDoor door, HttpServletRequest request, HttpServletResponse response, String who)
            throws IOException {
        long expected = expectedVersion(door.admin(), request, response);
        if (expected == ANSWERED) {
            return;
        }
        SharedDocument d = door.admin().sharedRules();
        if (!d.present()) {
            AdminJson.send(response, 404, "{\"error\":\"no shared rules document to remove\",\"version\":"
                    + d.version() + "}");
            return;
        }
        write(door.admin(), null, expected, who, response);
    }

    /** Writes (or removes, {@code text} null) the document, and answers. */
    private static void write(Administration admin, String text, long expected, String who,
            HttpServletResponse response) throws IOException {
        SharedDocument written;
        try {
            written = admin.replaceSharedRules(text, expected, who);
        } catch (ConfigException invalid) {           // nothing was written
            AdminJson.error(response, 400, invalid.getMessage());
            return;
        } catch (StaleVersionException stale) {
            response.setHeader("ETag", etag(stale.actual()));
            AdminJson.send(response, 412, "{\"error\":" + AdminJson.string(stale.getMessage()) + ",\"version\":"
                    + stale.actual() + "}");
            return;
        } catch (IllegalArgumentException tooLong) {  // counted in characters here, in bytes by the store
            tooLarge(response);
            return;
        } catch (IllegalStateException noReader) {
            AdminJson.error(response, 503, noReader.getMessage());
            return;
        }
        response.setHeader("ETag", etag(written.version()));
        if (text == null) {
            response.setStatus(204);            // removed: the ETag tells the version that records it
            return;
        }
        AdminJson.send(response, 200, "{\"version\":" + written.version() + "}");
    }

    /**
     * @return the version {@code If-Match} names, -1 without one, the version in the store for {@code *} (when there is
     *     a document); {@link #ANSWERED} when it answered 412 (none for {@code *}) or 400 (not a version)
     */
    private static long expectedVersion(Administration admin, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        String ifMatch = request.getHeader("If-Match");
        if (ifMatch == null) {
            return -1;
        }
        String value = ifMatch.trim();
        if (value.equals("*")) {
            SharedDocument d = admin.sharedRules();
            if (!d.present()) {
                AdminJson.send(response, 412, "{\"error\":\"If-Match: * but there is no shared rules document\","
                        + "\"version\":" + d.version() + "}");
                return ANSWERED;
            }
            return d.version();
        }
        Matcher m = ETAG.matcher(value);
        if (!m.matches()) {
            AdminJson.error(response, 400, "expected If-Match: \"<version>\", the ETag of GET /rules, or *");
            return ANSWERED;
        }
        return Long.parseLong(m.group(1));
    }

    static void listOverrides(FrontDoor door, HttpServletResponse response) throws IOException {
        List<KeyOverride> all = door.admin().overrides();
        AdminJson.stream(response, out -> {
            out.write('[');
            for (int i = 0; i < all.size(); i++) {
                out.write((i == 0 ? "" : ",") + json(all.get(i)));
            }
            out.write(']');
        });
    }

    static void putOverride(FrontDoor door, HttpServletRequest request, HttpServletResponse response, String who)
            throws IOException {
        String policy = request.getParameter("policy");
        if (!AdminServlet.namesRuleAndKey(request) || policy == null || policy.isBlank()) {
            AdminJson.error(response, 400, "expected parameters rule, key (as stored) or value (as a client sends "
                    + "it), and policy, such as ?rule=per-api-key&value=k-123&policy=10000/1h&for=7d");
            return;
        }
        KeyOverride set;
        try {
            Duration duration = duration(request.getParameter("for"));
            set = door.admin().override(request.getParameter("rule"), AdminServlet.key(request), policy, duration, who);
        } catch (ConfigException invalid) {
            AdminJson.error(response, 400, invalid.getMessage());
            return;
        } catch (IllegalStateException full) {
            AdminJson.error(response, 409, full.getMessage());
            return;
        }
        if (set == null) {
            AdminServlet.noSuchRule(request, response);
            return;
        }
        AdminJson.send(response, 200, json(set));
    }

    /**
     * @return parameter {@code for}: null (until removed) when absent; at most
     *     {@link Administration#MAX_OVERRIDE_DURATION}
     */
    private static Duration duration(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        Duration d = PolicyParser.parseDuration("for", text);
        if (d.compareTo(Administration.MAX_OVERRIDE_DURATION) > 0) {
            throw new ConfigException("for", text, "expected at most " + Administration.MAX_OVERRIDE_DURATION.toDays()
                    + "d; leave it out for an override that holds until removed");
        }
        return d;
    }

    static void removeOverride(FrontDoor door, HttpServletRequest request, HttpServletResponse response, String who)
            throws IOException {
        if (!AdminServlet.namesRuleAndKey(request)) {
            AdminJson.error(response, 400, "expected parameters rule, and key (as stored) or value (as a client sends "
                    + "it), such as ?rule=per-api-key&value=k-123");
            return;
        }
        KeyOverride removed = door.admin().removeOverride(request.getParameter("rule"), AdminServlet.key(request), who);
        if (removed == null) {
            AdminJson.send(response, 404, "{\"error\":\"no override of this key under rule "
                    + AdminJson.echo(request.getParameter("rule")) + "\"}");
            return;
        }
        response.setStatus(204);
    }

    static void audit(FrontDoor door, HttpServletRequest request, HttpServletResponse response) throws IOException {
        String given = request.getParameter("max");
        int max = DEFAULT_AUDIT;
        if (given != null) {
            max = given.matches("[0-9]{1,4}") ? Integer.parseInt(given) : 0;
            if (max < 1 || max > MAX_AUDIT) {
                AdminJson.error(response, 400, "expected max between 1 and " + MAX_AUDIT + " (default " + DEFAULT_AUDIT
                        + ")");
                return;
            }
        }
        List<AuditEntry> entries = door.admin().audit(max);
        AdminJson.stream(response, out -> {
            out.write('[');
            for (int i = 0; i < entries.size(); i++) {
                AuditEntry e = entries.get(i);
                out.write((i == 0 ? "" : ",") + "{\"id\":" + AdminJson.string(e.id()) + ",\"at\":"
                        + AdminJson.instant(e.atMillis()) + ",\"who\":" + AdminJson.string(e.who()) + ",\"action\":"
                        + AdminJson.string(e.action().name()) + ",\"rule\":"
                        + AdminJson.string(e.rule()) + ",\"key\":" + AdminJson.string(e.key()) + ",\"value\":"
                        + AdminJson.string(e.value()) + ",\"previous\":" + AdminJson.string(e.previous()) + "}");
            }
            out.write(']');
        });
    }

    static void status(FrontDoor door, HttpServletResponse response) throws IOException {
        Operations.Status s = door.admin().status();
        Map<String, Rule.FailureMode> modes = new HashMap<>();
        door.admin().rulesInForce().forEach(r -> modes.put(r.name(), r.onStoreFailure()));
        StringBuilder rules = new StringBuilder("[");
        for (Map.Entry<String, RuleOrigin> r : door.admin().ruleOrigins().entrySet()) {
            Rule.FailureMode mode = modes.get(r.getKey());
            rules.append(rules.length() > 1 ? "," : "").append("{\"name\":").append(AdminJson.string(r.getKey()))
                    .append(",\"origin\":").append(AdminJson.string(r.getValue().id())).append(",\"onStoreFailure\":")
                    .append(mode == null ? "null" : AdminJson.string(mode.name().toLowerCase(Locale.ROOT))).append('}');
        }
        AdminJson.send(response, 200, "{\"version\":" + s.version() + ",\"documentVersion\":" + s.documentVersion()
                + ",\"rejectedVersion\":" + s.rejectedVersion() + ",\"rejection\":" + AdminJson.string(s.rejection())
                + ",\"rejections\":" + s.rejections() + ",\"overrides\":" + s.overrides() + ",\"rules\":" + rules
                + "],\"store\":" + AdminJson.store(door.admin().storeHealth(), door.engine().timeSource().nowMicros())
                + "}");
    }

    private static String json(KeyOverride o) {
        return "{\"rule\":" + AdminJson.string(o.rule()) + ",\"key\":" + AdminJson.string(o.key()) + ",\"policy\":"
                + AdminJson.string(o.policy()) + ",\"until\":" + AdminJson.instant(o.untilMillis()) + ",\"who\":"
                + AdminJson.string(o.who()) + ",\"at\":" + AdminJson.instant(o.atMillis()) + "}";
    }

    /**
     * @return why a rules document in {@code contentType} (the header as sent) is refused; null when it is YAML in
     *     UTF-8 (no charset, or UTF-8 by any of its names)
     */
    private static String unsupported(String contentType) {
        ContentType type;
        try {
            type = ContentType.parse(contentType);
        } catch (ContentType.Unsupported e) {
            return e.getMessage() + "; a rules document is Content-Type: application/yaml (UTF-8)";
        }
        if (type == null || !YAML.contains(type.mediaType())
                || (type.charset() != null && !type.charset().equals(StandardCharsets.UTF_8))) {
            return "expected Content-Type: application/yaml (UTF-8): a rules document in the schema of a rules file";
        }
        return null;
    }

    /**
     * 413 for a body too large. A client still sending when the answer comes sees its connection reset, not the 413:
     * a body a little too large (at most {@value #DRAIN_BYTES} bytes more than a document) is read to its end and
     * dropped first; beyond, the connection is closed after the answer.
     */
    private static void refuseBody(HttpServletRequest request, boolean drain, HttpServletResponse response)
            throws IOException {
        boolean ended = false;
        if (drain) {
            InputStream in = request.getInputStream();
            byte[] buffer = new byte[8192];
            long left = SharedSettings.MAX_DOCUMENT_BYTES + DRAIN_BYTES + 1L;    // all of a body declared that long
            int n = 0;
            while (left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) >= 0) {
                left -= n;
            }
            ended = n < 0;
        }
        if (!ended) {
            response.setHeader("Connection", "close");
        }
        tooLarge(response);
    }

    private static void tooLarge(HttpServletResponse response) throws IOException {
        AdminJson.error(response, 413, "expected a document of at most " + SharedSettings.MAX_DOCUMENT_BYTES
                + " bytes of UTF-8");
    }

    private static String etag(long version) {
        return "\"" + version + "\"";
    }
}
