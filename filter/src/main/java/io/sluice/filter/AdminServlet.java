package io.sluice.filter;

import io.sluice.core.policy.Outcome;
import io.sluice.http.FrontDoor;
import io.sluice.core.key.KeyResolvers;
import io.sluice.core.store.StoreException;
import io.sluice.core.log.LogText;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.NoSuchElementException;

/**
 * The opt-in admin endpoint: inspect a key's state under a rule, and reset (unblock) it. Not active unless declared;
 * protect it with the container's security, and it also requires the caller to be in role {@code role} (init
 * parameter, default {@value #DEFAULT_ROLE}) — without an authenticated caller in that role it answers 403.
 *
 * <pre>
 * &lt;servlet&gt;
 *   &lt;servlet-name&gt;sluice-admin&lt;/servlet-name&gt;
 *   &lt;servlet-class&gt;io.sluice.filter.AdminServlet&lt;/servlet-class&gt;
 *   &lt;init-param&gt;&lt;param-name&gt;filter&lt;/param-name&gt;&lt;param-value&gt;sluice&lt;/param-value&gt;&lt;/init-param&gt;
 * &lt;/servlet&gt;
 * &lt;servlet-mapping&gt;&lt;servlet-name&gt;sluice-admin&lt;/servlet-name&gt;&lt;url-pattern&gt;/sluice-admin&lt;/url-pattern&gt;&lt;/servlet-mapping&gt;
 * &lt;security-constraint&gt; ... &lt;role-name&gt;sluice-admin&lt;/role-name&gt; ... &lt;/security-constraint&gt;
 * </pre>
 *
 * <p>{@code GET ?rule=per-ip&key=203.0.113.9[&tier=pro]}: 200 with the key's numbers as JSON, consuming nothing.
 * {@code DELETE ?rule=per-ip&key=203.0.113.9}: 204, the key is reset (and unblocked, penalty included). Instead of
 * {@code key} (the key as stored), {@code value} gives one value as a client sends it, such as a long API key, which
 * the endpoint stores as a rule does (hashed when longer than 64 characters or starting with {@code #}): for rules
 * keyed by one header, query parameter, attribute or principal, not by {@code ip} or {@code path}, whose keys are
 * normalized otherwise. 400 when a parameter is missing, 404
 * for an unknown rule, 503 when the filter is not running or the store cannot be reached (the store's error is logged,
 * not answered). Any other method ({@code POST}, {@code PUT}, {@code OPTIONS}, {@code TRACE}, ...) is 405 with
 * {@code Allow: GET, HEAD, DELETE}; the caller is checked first, whatever the method, and every answer is
 * {@code Cache-Control: no-store}.
 */
public class AdminServlet extends HttpServlet {

    private static final System.Logger LOG = System.getLogger(AdminServlet.class.getName());

    /** The role a caller needs: {@value}. */
    public static final String DEFAULT_ROLE = "sluice-admin";

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
     * The caller first, for every method: HttpServlet's own OPTIONS and TRACE would otherwise answer anyone (TRACE
     * echoing the request's Cookie and Authorization headers). Then only GET, HEAD and DELETE.
     */
    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
            throws ServletException, IOException {
        response.setHeader("Cache-Control", "no-store");        // the 204 of a reset too
        response.setHeader("X-Content-Type-Options", "nosniff");  // its JSON may quote a rule name as given
        if (!authorized(request, response)) {
            return;
        }
        String method = request.getMethod();
        if (!method.equals("GET") && !method.equals("HEAD") && !method.equals("DELETE")) {
            response.setHeader("Allow", "GET, HEAD, DELETE");
            json(response, 405, "{\"error\":\"expected GET (inspect a key) or DELETE (reset it)\"}");
            return;
        }
        super.service(request, response);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        FrontDoor door = door(request, response);
        if (door == null) {
            return;
        }
        Outcome o;
        String tier = request.getParameter("tier");
        try {
            // a tier as its selector gives it: "#vip", or a name over 64 characters, as its hash
            o = door.inspect(request.getParameter("rule"), key(request), tier == null ? null : KeyResolvers.stored(tier));
        } catch (StoreException e) {
            storeUnavailable(response, e);
            return;
        } catch (NoSuchElementException unknownTier) {
            json(response, 404, "{\"error\":\"" + escape(unknownTier.getMessage()) + "\"}");
            return;
        }
        if (o == null) {
            json(response, 404, "{\"error\":\"no rule named " + escape(request.getParameter("rule")) + "\"}");
            return;
        }
        json(response, 200, "{\"rule\":\"" + escape(request.getParameter("rule")) + "\",\"limit\":" + o.limit()
                + ",\"remaining\":" + o.remaining() + ",\"resetAfterMillis\":" + millis(o.resetAfterMicros()) + "}");
    }

    @Override
    protected void doDelete(HttpServletRequest request, HttpServletResponse response) throws IOException {
        FrontDoor door = door(request, response);
        if (door == null) {
            return;
        }
        boolean known;
        try {
            known = door.reset(request.getParameter("rule"), key(request));
        } catch (StoreException e) {
            storeUnavailable(response, e);
            return;
        }
        if (!known) {
            json(response, 404, "{\"error\":\"no rule named " + escape(request.getParameter("rule")) + "\"}");
            return;
        }
        response.setStatus(204);
    }

    /**
     * @return the key of the request's parameter {@code key}, as stored; or of {@code value}, a single value as a client
     *     sends it (an API key, say), stored as a rule stores it: trimmed, and hashed when longer than 64 characters or
     *     starting with {@code #}
     */
    private static String key(HttpServletRequest request) {
        String key = request.getParameter("key");
        return key != null && !key.isEmpty() ? key : KeyResolvers.stored(request.getParameter("value"));
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
        json(response, 503, "{\"error\":\"the rate-limit store is unavailable\"}");
    }

    /** @return whether the caller is authenticated and in the role; else answers 403 */
    private boolean authorized(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (request.getUserPrincipal() == null || !request.isUserInRole(role)) {
            json(response, 403, "{\"error\":\"the Sluice admin endpoint needs an authenticated caller in role "
                    + escape(role) + "\"}");
            return false;
        }
        return true;
    }

    /**
     * Checks the parameters (the caller was checked by {@link #service}); answers and returns null when the request
     * cannot proceed.
     */
    private FrontDoor door(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String rule = request.getParameter("rule");
        String key = request.getParameter("key");
        String value = request.getParameter("value");
        if (rule == null || rule.isBlank() || (key == null || key.isEmpty()) == (value == null || value.isBlank())) {
            json(response, 400, "{\"error\":\"expected parameter rule, and either key (as stored) or value (as a "
                    + "client sends it), such as ?rule=per-ip&key=203.0.113.9 or ?rule=per-api-key&value=k-123\"}");
            return null;
        }
        Object door = getServletContext().getAttribute(RateLimitFilter.contextAttribute(filterName));
        if (!(door instanceof FrontDoor frontDoor)) {
            json(response, 503, "{\"error\":\"no Sluice filter named " + escape(filterName) + " is running\"}");
            return null;
        }
        return frontDoor;
    }

    private static void json(HttpServletResponse response, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setHeader("Cache-Control", "no-store");
        response.setContentType("application/json");
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }

    private static long millis(long micros) {
        return micros == Outcome.NEVER ? -1 : (micros + 999) / 1000;
    }

    private static String value(String v, String fallback) {
        return v == null || v.isBlank() ? fallback : v.trim();
    }

    private static String escape(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
            if (out.length() > 200) {
                break;
            }
        }
        return out.toString();
    }
}
