package io.sluice.filter;

import io.sluice.core.key.KeyResolvers;
import io.sluice.core.log.LogText;
import io.sluice.core.policy.Outcome;
import io.sluice.core.store.StoreException;
import io.sluice.http.FrontDoor;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The opt-in admin endpoint: inspect a key's state under a rule and reset (unblock) it; read and replace the shared
 * rules document; set and remove per-key overrides; read the audit trail and where this node stands. Not active unless
 * declared; protect it with the container's security, and it also requires the caller to be in role {@code role}
 * (init parameter, default {@value #DEFAULT_ROLE}) — without an authenticated caller in that role it answers 403.
 * Map it with its sub-paths:
 *
 * <pre>
 * &lt;servlet&gt;
 *   &lt;servlet-name&gt;sluice-admin&lt;/servlet-name&gt;
 *   &lt;servlet-class&gt;io.sluice.filter.AdminServlet&lt;/servlet-class&gt;
 *   &lt;init-param&gt;&lt;param-name&gt;filter&lt;/param-name&gt;&lt;param-value&gt;sluice&lt;/param-value&gt;&lt;/init-param&gt;
 * &lt;/servlet&gt;
 * &lt;servlet-mapping&gt;&lt;servlet-name&gt;sluice-admin&lt;/servlet-name&gt;&lt;url-pattern&gt;/sluice-admin/*&lt;/url-pattern&gt;&lt;/servlet-mapping&gt;
 * &lt;security-constraint&gt; ... &lt;url-pattern&gt;/sluice-admin/*&lt;/url-pattern&gt; ... &lt;role-name&gt;sluice-admin&lt;/role-name&gt; ... &lt;/security-constraint&gt;
 * </pre>
 *
 * <p>The bare path: {@code GET ?rule=per-ip&key=203.0.113.9[&tier=pro]}: 200 with the key's numbers as JSON,
 * consuming nothing. {@code DELETE ?rule=per-ip&key=203.0.113.9}: 204, the key is reset (and unblocked, penalty
 * included) on every node, and the audit trail records it with the caller's principal. Instead of {@code key} (the key
 * as stored), {@code value} gives one value as a client sends it, such as a long API key, which the endpoint stores as
 * a rule does (hashed when longer than 64 characters or starting with {@code #}): for rules keyed by one header, query
 * parameter, attribute or principal, not by {@code ip} or {@code path}, whose keys are normalized otherwise. 400 when a
 * parameter is missing, 404 for an unknown rule.
 *
 * <p>The sub-paths ({@link AdminSettings}): {@code /rules} ({@code GET}, {@code PUT}, {@code DELETE}: the shared
 * rules document, with its version as {@code ETag} and {@code If-Match}), {@code /overrides} ({@code GET},
 * {@code PUT ?rule=&key=&policy=10000/1h[&for=7d]}, {@code DELETE ?rule=&key=}), {@code /audit} ({@code GET
 * [?max=100]}), {@code /status} ({@code GET}). Any other path is 404.
 *
 * <p>For every path: the caller is checked first, whatever the method (HttpServlet's own {@code OPTIONS} and
 * {@code TRACE} would otherwise answer anyone); then a method the path does not serve is 405 with the path's
 * {@code Allow}; 503 when the filter is not running or the store cannot be reached (the store's error is logged, not
 * answered). Every answer is {@code Cache-Control: no-store} and {@code X-Content-Type-Options: nosniff}. No
 * {@code POST} is served: the state changes are {@code PUT} and {@code DELETE}, which no HTML form can send, and which
 * a browser sends cross-site only after a CORS preflight that this endpoint never grants.
 */
public class AdminServlet extends HttpServlet {

    private static final System.Logger LOG = System.getLogger(AdminServlet.class.getName());

    /** The role a caller needs: {@value}. */
    public static final String DEFAULT_ROLE = "sluice-admin";

    /** The paths served, with the methods each serves. */
    enum Route {
        KEY("GET, HEAD, DELETE", "expected GET (inspect a key) or DELETE (reset it)"),
        RULES("GET, HEAD, PUT, DELETE", "expected GET (read the shared rules document), PUT (replace it) or DELETE "
                + "(remove it)"),
        OVERRIDES("GET, HEAD, PUT, DELETE", "expected GET (list the overrides), PUT (set one) or DELETE (remove one)"),
        AUDIT("GET, HEAD", "expected GET (read the audit trail)"),
        STATUS("GET, HEAD", "expected GET (this node's shared settings)");

        final String allow;
        final Set<String> methods;
        final String expected;

        Route(String allow, String expected) {
            this.allow = allow;
            this.methods = Set.of(allow.split(", "));
            this.expected = expected;
        }

        /** @return the route of a path inside the servlet's mapping; null when none */
        static Route of(String pathInfo) {
            if (pathInfo == null || pathInfo.equals("/")) {
                return KEY;
            }
            return switch (pathInfo) {
                case "/rules" -> RULES;
                case "/overrides" -> OVERRIDES;
                case "/audit" -> AUDIT;
                case "/status" -> STATUS;
                default -> null;
            };
        }
    }

    private String filterName;
    private String role;

    @Override
    public void init() throws ServletException {
        filterName = value(getInitParameter("filter"), "sluice");
        role = value(getInitParameter("role"), DEFAULT_ROLE);
        if (role.equals("*") || role.equals("**")) {
            // isUserInRole("**") is true for any authenticated user (Servlet 6, 13.3): an admin open to every login
            throw new ServletException("Sluice admin endpoint: role=\"" + role + "\" would let any authenticated user"
                    + " inspect and reset limits; name the role of the operators (default " + DEFAULT_ROLE + ")");
        }
    }

    /**
     * The caller first, for every method and path: HttpServlet's own OPTIONS and TRACE would otherwise answer anyone
     * (TRACE echoing the request's Cookie and Authorization headers). Then the path, then the methods it serves.
     */
    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
            throws ServletException, IOException {
        response.setHeader("Cache-Control", "no-store");        // the 204 of a reset too
        response.setHeader("X-Content-Type-Options", "nosniff");  // its JSON may quote a rule name as given
        if (!authorized(request, response)) {
            return;
        }
        Route route = Route.of(request.getPathInfo());
        if (route == null) {
            AdminJson.error(response, 404, "no such admin path; expected the bare path (a key), /rules, /overrides,"
                    + " /audit or /status");
            return;
        }
        if (!route.methods.contains(request.getMethod())) {
            response.setHeader("Allow", route.allow);
            AdminJson.error(response, 405, route.expected);
            return;
        }
        super.service(request, response);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Route route = Route.of(request.getPathInfo());
        FrontDoor door = route == Route.KEY ? keyDoor(request, response) : door(response);
        if (door == null) {
            return;
        }
        try {
            switch (route) {
                case KEY -> inspect(door, request, response);
                case RULES -> AdminSettings.readRules(door, response);
                case OVERRIDES -> AdminSettings.listOverrides(door, response);
                case AUDIT -> AdminSettings.audit(door, request, response);
                case STATUS -> AdminSettings.status(door, response);
            }
        } catch (StoreException e) {
            storeUnavailable(response, e);
        }
    }

    @Override
    protected void doPut(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Route route = Route.of(request.getPathInfo());
        FrontDoor door = door(response);
        if (door == null) {
            return;
        }
        try {
            if (route == Route.RULES) {
                AdminSettings.replaceRules(door, request, response, who(request));
            } else {
                AdminSettings.putOverride(door, request, response, who(request));
            }
        } catch (StoreException e) {
            storeUnavailable(response, e);
        }
    }

    @Override
    protected void doDelete(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Route route = Route.of(request.getPathInfo());
        FrontDoor door = route == Route.KEY ? keyDoor(request, response) : door(response);
        if (door == null) {
            return;
        }
        try {
            switch (route) {
                case KEY -> reset(door, request, response);
                case RULES -> AdminSettings.removeRules(door, request, response, who(request));
                default -> AdminSettings.removeOverride(door, request, response, who(request));
            }
        } catch (StoreException e) {
            storeUnavailable(response, e);
        }
    }

    private static void inspect(FrontDoor door, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        Outcome o;
        String tier = request.getParameter("tier");
        try {
            // a tier as its selector gives it: "#vip", or a name over 64 characters, as its hash
            o = door.inspect(request.getParameter("rule"), key(request), tier == null ? null : KeyResolvers.stored(tier));
        } catch (NoSuchElementException unknownTier) {
            AdminJson.send(response, 404, "{\"error\":\"" + AdminJson.echo(unknownTier.getMessage()) + "\"}");
            return;
        }
        if (o == null) {
            noSuchRule(request, response);
            return;
        }
        AdminJson.send(response, 200, "{\"rule\":\"" + AdminJson.echo(request.getParameter("rule")) + "\",\"limit\":"
                + o.limit() + ",\"remaining\":" + o.remaining() + ",\"resetAfterMillis\":"
                + millis(o.resetAfterMicros()) + "}");
    }

    private static void reset(FrontDoor door, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        if (!door.admin().reset(request.getParameter("rule"), key(request), who(request))) {
            noSuchRule(request, response);
            return;
        }
        response.setStatus(204);
    }

    /** 404: no rule in force has the name of parameter {@code rule}. */
    static void noSuchRule(HttpServletRequest request, HttpServletResponse response) throws IOException {
        AdminJson.send(response, 404, "{\"error\":\"no rule named " + AdminJson.echo(request.getParameter("rule"))
                + "\"}");
    }

    /**
     * @return the key of the request's parameter {@code key}, as stored; or of {@code value}, a single value as a client
     *     sends it (an API key, say), stored as a rule stores it: trimmed, and hashed when longer than 64 characters or
     *     starting with {@code #}; null when neither is given
     */
    static String key(HttpServletRequest request) {
        String key = request.getParameter("key");
        return key != null && !key.isEmpty() ? key : KeyResolvers.stored(request.getParameter("value"));
    }

    /** @return whether the request gives parameter {@code rule}, and one of {@code key} and {@code value} */
    static boolean namesRuleAndKey(HttpServletRequest request) {
        String rule = request.getParameter("rule");
        String key = request.getParameter("key");
        String value = request.getParameter("value");
        return rule != null && !rule.isBlank() && (key == null || key.isEmpty()) != (value == null || value.isBlank());
    }

    /** The caller's principal, for the audit trail: {@link #authorized} made sure there is one. */
    private static String who(HttpServletRequest request) {
        return request.getUserPrincipal().getName();
    }

    /**
     * The store cannot be reached: 503 with a retry hint, not a 500. The store's message (its address, the client
     * library's error) goes to the log, not to the response, {@link LogText#safe(String) safe}: it may quote the key
     * of the request.
     */
    private static void storeUnavailable(HttpServletResponse response, StoreException e) throws IOException {
        LOG.log(System.Logger.Level.WARNING, "Sluice admin endpoint: the rate-limit store is unavailable: "
                + LogText.safe(e.getMessage()));
        response.setHeader("Retry-After", "1");
        AdminJson.error(response, 503, "the rate-limit store is unavailable");
    }

    /** @return whether the caller is authenticated and in the role; else answers 403 */
    private boolean authorized(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (request.getUserPrincipal() == null || !request.isUserInRole(role)) {
            AdminJson.send(response, 403, "{\"error\":\"the Sluice admin endpoint needs an authenticated caller in role "
                    + AdminJson.echo(role) + "\"}");
            return false;
        }
        return true;
    }

    /** {@link #door} for the bare path, whose parameters are checked first: 400 when they name no rule and key. */
    private FrontDoor keyDoor(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!namesRuleAndKey(request)) {
            AdminJson.error(response, 400, "expected parameter rule, and either key (as stored) or value (as a client "
                    + "sends it), such as ?rule=per-ip&key=203.0.113.9 or ?rule=per-api-key&value=k-123");
            return null;
        }
        return door(response);
    }

    /** @return the filter's front door; answers 503 and returns null when it is not running */
    private FrontDoor door(HttpServletResponse response) throws IOException {
        Object door = getServletContext().getAttribute(RateLimitFilter.contextAttribute(filterName));
        if (!(door instanceof FrontDoor frontDoor)) {
            AdminJson.send(response, 503, "{\"error\":\"no Sluice filter named " + AdminJson.echo(filterName)
                    + " is running\"}");
            return null;
        }
        return frontDoor;
    }

    private static long millis(long micros) {
        return micros == Outcome.NEVER ? -1 : (micros + 999) / 1000;
    }

    private static String value(String v, String fallback) {
        return v == null || v.isBlank() ? fallback : v.trim();
    }
}
