package io.sluice.filter;

import io.sluice.core.Decision;
import io.sluice.core.RuleOutcome;
import io.sluice.core.config.ConfigException;
import io.sluice.core.internal.LogThrottle;
import io.sluice.core.store.JobQueue;
import io.sluice.core.store.StoreException;
import io.sluice.http.Reply;
import io.sluice.http.RuleSet;
import io.sluice.http.internal.ContentType;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.function.Supplier;

/**
 * The filter's {@code enqueue} mode: a request denied by rules in {@code enqueue} mode only (over their immediate rate)
 * is offered to the rule's {@link JobQueue} and answered 202 Accepted with a {@code Location} where its outcome is read
 * ({@code GET <context><jobs-path>/<queue>/<id>}); a full queue answers the usual 429, {@code Retry-After} the queue's
 * hint. Queues are found in servlet context attribute {@value #ATTRIBUTE_PREFIX}{@code <name>}, set by the application
 * (a {@code ServletContextListener}) before the filter starts. See {@code docs/enqueue.md}.
 */
final class Enqueuing {

    private static final System.Logger LOG = System.getLogger(Enqueuing.class.getName());

    /** The servlet context attribute holding the queue of a name: {@value}{@code <name>}. */
    static final String ATTRIBUTE_PREFIX = "io.sluice.queue.";
    /** Where clients read outcomes by default: {@value}. */
    static final String DEFAULT_JOBS_PATH = "/sluice-jobs";
    /** The init-param that moves it: {@value}. */
    static final String JOBS_PATH_PARAMETER = "jobs-path";

    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._-]+)+");
    private static final Pattern QUEUE = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    /** A Redis Stream id, strictly: milliseconds and a sequence. */
    private static final Pattern ID = Pattern.compile("[0-9]{1,20}-[0-9]{1,20}");

    private final ServletContext context;
    private final String jobsPath;
    private final LogThrottle failures = new LogThrottle(60_000_000);

    Enqueuing(ServletContext context, String jobsPath) {
        this.context = context;
        this.jobsPath = jobsPath;
    }

    /** @return the jobs path of init-param {@value #JOBS_PATH_PARAMETER}, checked, or the default */
    static String jobsPath(String parameter) {
        if (parameter == null || parameter.isBlank()) {
            return DEFAULT_JOBS_PATH;
        }
        String p = parameter.trim();
        if (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        if (!PATH.matcher(p).matches() || p.length() > 200) {
            throw new ConfigException(JOBS_PATH_PARAMETER + " (init-param)", parameter,
                    "expected a path such as \"/sluice-jobs\": segments of letters, digits, '.', '_' or '-'");
        }
        return p;
    }

    /**
     * Checks that every queue {@code rules} name is registered: at start-up and for every reload of the rules.
     *
     * @throws ConfigException naming the rule and the queue
     */
    void check(RuleSet rules) {
        for (Map.Entry<String, String> e : rules.enqueue().entrySet()) {
            if (queue(e.getValue()) == null) {
                throw new ConfigException("rule " + e.getKey() + ".enqueue", e.getValue(), "expected a queue the"
                        + " application registers: servlet context attribute " + ATTRIBUTE_PREFIX + e.getValue()
                        + " holding an io.sluice.core.store.JobQueue (such as AdmissionQueue.asJobQueue()), set by a"
                        + " ServletContextListener; none is there");
            }
        }
    }

    private JobQueue queue(String name) {
        return context.getAttribute(ATTRIBUTE_PREFIX + name) instanceof JobQueue q ? q : null;
    }

    /**
     * @return the queue a denied request is offered to: the binding rule's, when every enforced rule that denies it is
     *     in {@code enqueue} mode (a rule that only limits, say per client, still answers 429), and the store answered;
     *     else null
     */
    static String queueFor(Decision decision, RuleSet rules) {
        if (decision.allowed() || decision.storeUnavailable() || decision.binding() == null
                || rules.enqueue().isEmpty()) {
            return null;
        }
        for (RuleOutcome o : decision.outcomes()) {
            if (o.denies() && rules.queueOf(o.rule().name()) == null) {
                return null;
            }
        }
        return rules.queueOf(decision.binding().rule().name());
    }

    /**
     * @return whether {@code request} is for the jobs path (outcomes are read there, never enqueued), while the rules
     *     in force have a rule in {@code enqueue} mode (else the path is the application's); the rules are read only
     *     for a request on that path
     */
    boolean jobsRequest(HttpServletRequest request, Supplier<RuleSet> rules) {
        return onJobsPath(request) && !rules.get().enqueue().isEmpty();
    }

    /** @return whether the request's path, past the context path, is the jobs path or below it; allocates nothing */
    private boolean onJobsPath(HttpServletRequest request) {
        String uri = request.getRequestURI();
        if (uri == null) {
            return false;
        }
        String contextPath = request.getContextPath();
        int at = contextPath != null && uri.startsWith(contextPath) ? contextPath.length() : 0;
        int end = at + jobsPath.length();
        return uri.startsWith(jobsPath, at) && (uri.length() == end || uri.charAt(end) == '/');
    }

    private static String path(HttpServletRequest request) {
        String uri = request.getRequestURI();
        String contextPath = request.getContextPath();
        if (uri == null) {
            return "";
        }
        return contextPath != null && uri.startsWith(contextPath) ? uri.substring(contextPath.length()) : uri;
    }

    /** Answers {@code GET <jobs-path>/<queue>/<id>}: the job's outcome as JSON, 404 when unknown, 405 not a GET. */
    void answerJob(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!"GET".equals(request.getMethod()) && !"HEAD".equals(request.getMethod())) {
            response.setHeader("Allow", "GET, HEAD");
            AdminJson.send(response, 405, "{\"error\":\"method not allowed\"}");
            return;
        }
        String[] parts = path(request).substring(jobsPath.length()).split("/", -1);
        // "", queue, id
        JobQueue queue = parts.length == 3 && QUEUE.matcher(parts[1]).matches() ? queue(parts[1]) : null;
        if (queue == null || !ID.matcher(parts[2]).matches()) {
            AdminJson.send(response, 404, "{\"error\":\"no such job\"}");
            return;
        }
        Optional<JobQueue.Job> job;
        try {
            job = queue.job(parts[2]);
        } catch (StoreException | IllegalArgumentException e) {
            failures.log(LOG, Level.WARNING, System.nanoTime() / 1_000, "Sluice rate limiting: the outcome of a job"
                    + " of queue " + queue.name() + " could not be read", e);
            response.setHeader("Retry-After", "1");
            AdminJson.send(response, 503, "{\"error\":\"the queue is unavailable\"}");
            return;
        }
        if (job.isEmpty()) {
            AdminJson.send(response, 404, "{\"error\":\"no such job\"}");
            return;
        }
        JobQueue.Job j = job.get();
        AdminJson.send(response, 200, "{\"id\":" + AdminJson.string(j.id()) + ",\"queue\":"
                + AdminJson.string(queue.name()) + ",\"status\":\"" + j.status() + "\",\"at\":"
                + (j.at() == null ? "null" : AdminJson.string(j.at().toString())) + ",\"deliveries\":"
                + j.deliveries() + "}");
    }

    /**
     * Offers a denied request to queue {@code name}: 202 with {@code Location} when accepted, 413 when its body is over
     * the queue's payload bound, else the usual refusal ({@code reply}), {@code Retry-After} the queue's hint when it
     * is full.
     */
    void enqueue(HttpServletRequest request, HttpServletResponse response, String name, Reply reply)
            throws IOException {
        JobQueue queue = queue(name);
        if (queue == null) {        // registered at start-up, removed since
            failures.log(LOG, Level.WARNING, System.nanoTime() / 1_000, "Sluice rate limiting: queue " + name
                    + " is no longer registered (servlet context attribute " + ATTRIBUTE_PREFIX + name
                    + "); answering 429", null);
            ReplyWriter.send(response, reply);
            return;
        }
        ContentType type;
        try {
            type = ContentType.parse(request.getHeader("Content-Type"));   // not getContentType(): it may throw
        } catch (ContentType.Unsupported e) {
            AdminJson.error(response, HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE, e.getMessage());
            return;
        }
        int max = queue.maxPayloadBytes();
        byte[] body = request.getContentLengthLong() > max ? null : read(request.getInputStream(), max);
        String payload = body == null ? null : payload(request, type, body);
        if (payload == null || payload.getBytes(StandardCharsets.UTF_8).length > max) {
            tooLarge(response, max);
            return;
        }
        JobQueue.Offer offer;
        try {
            offer = queue.offer(payload);
        } catch (IllegalArgumentException e) {
            tooLarge(response, max);
            return;
        } catch (StoreException e) {
            failures.log(LOG, Level.WARNING, System.nanoTime() / 1_000, "Sluice rate limiting: queue " + name
                    + " could not be offered a request; answering 429", e);
            ReplyWriter.send(response, reply);
            return;
        }
        if (!offer.accepted()) {
            ReplyWriter.send(response, withRetryAfter(reply, offer.retryAfter()));
            return;
        }
        String location = request.getContextPath() + jobsPath + "/" + name + "/" + offer.id();
        for (Reply.Header h : reply.headers()) {      // the rate-limit headers; not Retry-After: it is not refused
            if (!h.name().equalsIgnoreCase("Retry-After")
                    && (!h.onlyIfAbsent() || !response.containsHeader(h.name()))) {
                response.addHeader(h.name(), h.value());
            }
        }
        response.setHeader("Location", location);
        AdminJson.send(response, HttpServletResponse.SC_ACCEPTED, "{\"id\":" + AdminJson.string(offer.id())
                + ",\"queue\":" + AdminJson.string(name) + ",\"status\":\"QUEUED\",\"location\":"
                + AdminJson.string(location) + "}");
    }

    private static void tooLarge(HttpServletResponse response, int max) throws IOException {
        AdminJson.send(response, HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE,
                "{\"error\":\"the request is over the queue's payload bound\",\"maxPayloadBytes\":" + max + "}");
    }

    /** @return {@code reply} with {@code Retry-After} the queue's hint in whole seconds (at least 1), when longer */
    static Reply withRetryAfter(Reply reply, Duration hint) {
        long seconds = Math.max(1, (hint.toMillis() + 999) / 1_000);
        List<Reply.Header> headers = new ArrayList<>();
        for (Reply.Header h : reply.headers()) {
            if (h.name().equalsIgnoreCase("Retry-After")) {
                long given = parse(h.value());
                headers.add(new Reply.Header(h.name(), Long.toString(Math.max(given, seconds)), h.onlyIfAbsent()));
            } else {
                headers.add(h);
            }
        }
        if (reply.header("Retry-After") == null) {
            headers.add(new Reply.Header("Retry-After", Long.toString(seconds)));
        }
        return new Reply(reply.proceed(), reply.status(), headers, reply.contentType(), reply.body());
    }

    private static long parse(String seconds) {
        try {
            return Long.parseLong(seconds.trim());
        } catch (NumberFormatException e) {
            return 0;      // an HTTP date (reset-format): the queue's hint in seconds replaces it
        }
    }

    /** @return at most {@code max} bytes of {@code in}, or null when it holds more */
    private static byte[] read(InputStream in, int max) throws IOException {
        byte[] all = in.readNBytes(max);
        return all.length == max && in.read() != -1 ? null : all;
    }

    /**
     * @param type the request's {@code Content-Type}, read; null when it has none
     * @return the job: {@code {"method", "path" (in the application, as sent), "query" (or null), "contentType" (as
     *     sent, or null), "user" (or null), "body" (UTF-8 text, when no other charset is declared) or "bodyBase64"
     *     (other bytes)}}
     */
    static String payload(HttpServletRequest request, ContentType type, byte[] body) {
        StringBuilder b = new StringBuilder(body.length + 200);
        b.append("{\"method\":").append(AdminJson.string(request.getMethod()))
                .append(",\"path\":").append(AdminJson.string(path(request)))
                .append(",\"query\":").append(nullable(request.getQueryString()))
                .append(",\"contentType\":").append(nullable(type == null ? null : request.getHeader("Content-Type")))
                .append(",\"user\":").append(nullable(request.getRemoteUser()));
        boolean utf8 = type == null || type.charset() == null || type.charset().equals(StandardCharsets.UTF_8);
        String text = utf8 ? utf8(body) : null;    // text in another charset: its bytes, for the worker to decode
        if (text != null) {
            b.append(",\"body\":").append(AdminJson.string(text));
        } else {
            b.append(",\"bodyBase64\":\"").append(Base64.getEncoder().encodeToString(body)).append('"');
        }
        return b.append('}').toString();
    }

    private static String nullable(String s) {
        return s == null ? "null" : AdminJson.string(s);
    }

    private static String utf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
