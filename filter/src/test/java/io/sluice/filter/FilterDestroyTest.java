package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * The servlet filter's queue and {@code destroy()}: queued requests, requests still arriving, and the scheduler thread.
 * Requests and their async cycles are fakes (dynamic proxies) so that every step is the test's, on the real
 * {@link DelayScheduler#threaded()} scheduler.
 */
class FilterDestroyTest {

    /** One request every minute, up to 19 more queued: no queued request is due while a test runs. */
    private static final Map<String, String> QUEUEING = Map.of("limit", "1/1m burst 20 max-wait 1h");

    /**
     * A fake async cycle: counts its dispatches and completions; a second dispatch or completion is illegal, as in a
     * container.
     */
    static final class Async {
        final AtomicInteger dispatches = new AtomicInteger();
        final AtomicInteger completions = new AtomicInteger();
        final HttpServletResponse response;
        final AsyncContext context;

        Async(HttpServletResponse response) {
            this.response = response;
            this.context = fake(AsyncContext.class, (name, args) -> switch (name) {
                case "dispatch", "complete" -> {
                    (name.equals("dispatch") ? dispatches : completions).incrementAndGet();
                    if (ends() > 1) {
                        throw new IllegalStateException("dispatched or completed twice");
                    }
                    yield null;
                }
                case "getResponse" -> response;
                default -> null;
            });
        }

        /** @return how often the cycle was ended: dispatched or completed */
        int ends() {
            return dispatches.get() + completions.get();
        }

        /** @return whether the filter answered the request itself: completed with 503, never dispatched */
        boolean answeredUnavailable() {
            return dispatches.get() == 0 && completions.get() == 1 && response.getStatus() == 503;
        }
    }

    /** A request from {@code ip}; its async cycle, if it starts one, is added to {@code cycles}. */
    private static HttpServletRequest request(String ip, List<Async> cycles) {
        return request(ip, cycles, true);
    }

    /** ... through a chain that is async-supported or not (not: a queued request waits on its own thread). */
    private static HttpServletRequest request(String ip, List<Async> cycles, boolean asyncSupported) {
        Map<String, Object> attributes = new ConcurrentHashMap<>();
        Async[] async = new Async[1];
        return fake(HttpServletRequest.class, (name, args) -> switch (name) {
            case "getDispatcherType" -> DispatcherType.REQUEST;
            case "isAsyncSupported" -> asyncSupported;
            case "getMethod" -> "GET";
            case "getServletPath" -> "/";
            case "getRemoteAddr" -> ip;
            case "setAttribute" -> attributes.put((String) args[0], args[1]);
            case "getAttribute" -> attributes.get((String) args[0]);
            case "startAsync" -> {
                async[0] = new Async((HttpServletResponse) args[1]);
                cycles.add(async[0]);
                yield async[0].context;
            }
            case "isAsyncStarted" -> async[0] != null;
            case "getAsyncContext" -> async[0].context;
            default -> null;
        });
    }

    /** A response body: what the filter wrote, read back by {@link #body(HttpServletResponse)}. */
    private static final class Body extends ServletOutputStream {
        private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {}

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
        }

        synchronized String text() {
            return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /**
     * A response that keeps what the filter sets (status, headers, content type, body: read back through its getters
     * and {@link #body}), from any thread: the scheduler thread answers queued requests.
     */
    private static HttpServletResponse response() {
        AtomicInteger status = new AtomicInteger(200);
        Map<String, List<String>> headers =
                Collections.synchronizedMap(new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER));
        Map<String, String> contentType = new ConcurrentHashMap<>();
        Body body = new Body();
        return fake(HttpServletResponse.class, (name, args) -> switch (name) {
            case "setStatus" -> {
                status.set((Integer) args[0]);
                yield null;
            }
            case "getStatus" -> status.get();
            case "addHeader" -> {
                headers.computeIfAbsent((String) args[0], k -> new CopyOnWriteArrayList<>()).add((String) args[1]);
                yield null;
            }
            case "containsHeader" -> headers.containsKey((String) args[0]);
            case "getHeader" -> headers.getOrDefault((String) args[0], List.of()).stream().findFirst().orElse(null);
            case "getHeaders" -> List.copyOf(headers.getOrDefault((String) args[0], List.of()));
            case "setContentType" -> contentType.put("value", (String) args[0]);
            case "getContentType" -> contentType.get("value");
            case "getOutputStream" -> body;
            default -> null;
        });
    }

    /** @return the body the filter wrote to a {@link #response()} */
    private static String body(HttpServletResponse response) throws java.io.IOException {
        return ((Body) response.getOutputStream()).text();
    }

    private static RateLimitFilter started(Map<String, String> parameters) throws Exception {
        RateLimitFilter filter = new RateLimitFilter(new ManualClock(), null);     // the real scheduler thread
        ServletContext context = fake(ServletContext.class, (name, args) -> null);
        filter.init(fake(FilterConfig.class, (name, args) -> switch (name) {
            case "getFilterName" -> "sluice";
            case "getServletContext" -> context;
            case "getInitParameterNames" -> Collections.enumeration(parameters.keySet());
            case "getInitParameter" -> parameters.get((String) args[0]);
            default -> null;
        }));
        return filter;
    }

    private static void send(RateLimitFilter filter, String ip, List<Async> cycles) throws Exception {
        filter.doFilter(request(ip, cycles), response(), (req, res) -> {});
    }

    /** Scheduler threads of earlier tests (one that failed may have left one): not this test's. */
    private final java.util.Set<Thread> before = java.util.Set.copyOf(threadsNamed("sluice-queue"));

    private static List<Thread> threadsNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name) && t.isAlive()).toList();
    }

    /** @return the scheduler threads this test started that are alive once those ending have ended (at most 5 s) */
    private List<Thread> schedulerThreads() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<Thread> alive;
        do {
            alive = threadsNamed("sluice-queue").stream().filter(t -> !before.contains(t)).toList();
            for (Thread t : alive) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
        } while (!alive.isEmpty() && System.nanoTime() < deadline);
        return alive.stream().filter(Thread::isAlive).toList();
    }

    @Test
    void aRequestQueuedAfterDestroyStartsNoThreadAndIsNotLeftWaiting() throws Exception {
        RateLimitFilter filter = started(QUEUEING);
        List<Async> cycles = new CopyOnWriteArrayList<>();
        send(filter, "10.0.0.1", cycles);                 // passes at once: no scheduler yet
        filter.destroy();                                 // the container stops while a request is still on its way
        send(filter, "10.0.0.1", cycles);                 // its turn is a minute away: queued

        assertThat(cycles).hasSize(1);
        assertThat(cycles.get(0).answeredUnavailable()).as("answered 503 at once: no scheduler is left to dispatch it,"
                + " and its servlet may be gone").isTrue();
        assertThat(filter.queued()).isZero();
        assertThat(schedulerThreads()).as("no scheduler thread outlives destroy()").isEmpty();
    }

    @Test
    void destroyAnswersTheRequestsStillQueued() throws Exception {
        RateLimitFilter filter = started(QUEUEING);
        List<Async> cycles = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 4; i++) {
            send(filter, "10.0.0.1", cycles);             // the first passes, three wait 1, 2 and 3 minutes
        }
        assertThat(cycles).hasSize(3);
        assertThat(filter.queued()).isEqualTo(3);

        filter.destroy();
        assertThat(cycles).as("none left waiting for a scheduler that was shut down (they would time out: 500), none"
                + " dispatched to a servlet the container has stopped: each answered 503")
                .allSatisfy(c -> assertThat(c.answeredUnavailable()).isTrue());
        assertThat(filter.queued()).isZero();
        assertThat(schedulerThreads()).isEmpty();
    }

    /** The body of a destroyed filter's 503 in each format of parameter {@code body}: [content type, body]. */
    private static final Map<String, List<String>> SHUTTING_DOWN = Map.of(
            "envelope", List.of("application/json", "{\"error\":{\"code\":\"shutting_down\",\"message\":\"The service is "
                    + "shutting down. Wait 1 second and try again.\",\"context\":{\"renewal\":"
                    + (ManualClock.START_MICROS / 1_000 + 1_000) + "}}}"),
            "problem", List.of("application/problem+json", "{\"type\":\"about:blank\",\"title\":\"Service Unavailable\","
                    + "\"status\":503,\"detail\":\"The service is shutting down. Wait 1 second and try again.\"}"),
            "none", java.util.Arrays.asList(null, ""));

    /**
     * A destroyed filter answers as it refuses otherwise: 503 with {@code Retry-After: 1}, {@code Cache-Control:
     * no-store}, the configured {@code deny-headers} and the configured body (code {@code shutting_down}), nothing of
     * the request in it; a request queued when destroy() comes and one arriving after alike.
     */
    @Test
    void aDestroyedFiltersAnswerHasRetryAfterNoStoreAndTheConfiguredBody() throws Exception {
        for (String format : List.of("envelope", "problem", "none")) {
            RateLimitFilter filter = started(Map.of("limit", "1/1m burst 20 max-wait 1h", "body", format,
                    "deny-headers", "Access-Control-Allow-Origin: *"));
            List<Async> cycles = new CopyOnWriteArrayList<>();
            send(filter, "10.0.0.1", cycles);             // passes at once
            send(filter, "10.0.0.1", cycles);             // queued for a minute
            filter.destroy();
            send(filter, "10.0.0.1", cycles);             // arrives after destroy()

            assertThat(cycles).as(format).hasSize(2);
            for (Async cycle : cycles) {
                HttpServletResponse r = cycle.response;
                assertThat(cycle.answeredUnavailable()).as(format).isTrue();
                assertThat(r.getHeaders("Retry-After")).as(format).containsExactly("1");
                assertThat(r.getHeaders("Cache-Control")).as(format).containsExactly("no-store");
                assertThat(r.getHeaders("Access-Control-Allow-Origin")).as(format).containsExactly("*");
                assertThat(r.getContentType()).as(format).isEqualTo(SHUTTING_DOWN.get(format).get(0));
                assertThat(body(r)).as(format).isEqualTo(SHUTTING_DOWN.get(format).get(1)).doesNotContain("10.0.0.1");
            }
        }
    }

    /**
     * Requests from several clients, most of them queued, while another thread destroys the filter: no request fails,
     * every queued one is answered exactly once (none is due: each is completed with 503), the count of queued requests ends at zero, no thread is left. Each
     * symptom is counted over the iterations (destroy lands before, among and after the requests at random).
     */
    @Test
    void requestsRacingDestroyNeitherFailNorHangNorLeakTheSchedulerThread() throws Exception {
        int clients = 4;
        int perClient = 12;
        int iterations = 200;
        int failed = 0;
        int undispatched = 0;
        int countLeft = 0;
        List<String> examples = new CopyOnWriteArrayList<>();
        for (int iteration = 0; iteration < iterations; iteration++) {
            RateLimitFilter filter = started(QUEUEING);
            List<Async> cycles = new CopyOnWriteArrayList<>();
            List<String> failures = new CopyOnWriteArrayList<>();
            CyclicBarrier start = new CyclicBarrier(clients + 1);
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                String ip = "10.0.0." + (c + 1);
                Thread client = new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < perClient; i++) {
                            send(filter, ip, cycles);
                        }
                    } catch (Throwable t) {
                        failures.add(t.toString());
                    }
                });
                client.start();
                threads.add(client);
            }
            int spin = ThreadLocalRandom.current().nextInt(100_000);
            start.await();
            for (int i = 0; i < spin; i++) {
                Thread.onSpinWait();
            }
            filter.destroy();
            for (Thread t : threads) {
                t.join(10_000);
                if (t.isAlive()) {
                    failures.add("a client thread still sending after 10 s");
                }
            }
            failed += failures.isEmpty() ? 0 : 1;
            undispatched += cycles.stream().anyMatch(c -> !c.answeredUnavailable()) ? 1 : 0;
            countLeft += filter.queued() != 0 ? 1 : 0;
            if (!failures.isEmpty() && examples.size() < 3) {
                examples.add(failures.get(0));
            }
        }
        int leaked = schedulerThreads().size();
        assertThat(List.of(failed, undispatched, countLeft, leaked))
                .as("of %d iterations: with a failed request (the container answers 500) %d, e.g. %s; with a queued "
                        + "request not answered 503 exactly once (it times out, or is dispatched) %d; with queued() not back to 0: %d; scheduler "
                        + "threads left running: %d", iterations, failed, examples, undispatched, countLeft, leaked)
                .containsOnly(0);
    }

    /**
     * A queueing rule per client and one lease in flight in all: a queued request holds the only lease, which outlasts
     * the longest wait (19 minutes: start-up refuses a lease that does not).
     */
    private static final String QUEUE_AND_LEASE = """
            rules:
              - name: queue
                limit: 1/1m burst 20 max-wait 1h
                key: ip
              - name: in-flight
                limit: 1 concurrent lease 1h
                key: global
            """;

    private static int leasesLeft(RateLimitFilter filter) {
        return (int) filter.frontDoor().inspect("in-flight", "global", null).remaining();
    }

    /** @return a rules file of {@link #QUEUE_AND_LEASE}, for the caller to delete */
    private static java.nio.file.Path queueAndLease() throws java.io.IOException {
        java.nio.file.Path rules = java.nio.file.Files.createTempFile("rules", ".yaml");
        java.nio.file.Files.writeString(rules, QUEUE_AND_LEASE);
        return rules;
    }

    /**
     * A chain that is not async-supported: a queued request waits on its own thread. Interrupted (a container stopping
     * its threads), it is answered 503 as a destroyed filter answers its queued requests, not 500 through a
     * ServletException, and the lease it took before waiting is released, not left to its timeout.
     */
    @Test
    void aRequestWaitingOnItsThreadThatIsInterruptedIsAnswered503AndReleasesItsLease() throws Exception {
        java.nio.file.Path rules = queueAndLease();
        RateLimitFilter filter = started(Map.of("rules", rules.toString(), "body", "problem"));
        try {
            List<Async> cycles = new CopyOnWriteArrayList<>();
            filter.doFilter(request("10.0.0.1", cycles, false), response(), (req, res) -> {});    // passes at once
            assertThat(leasesLeft(filter)).isEqualTo(1);

            HttpServletResponse response = response();
            AtomicInteger reached = new AtomicInteger();
            Thread.currentThread().interrupt();
            try {
                filter.doFilter(request("10.0.0.1", cycles, false), response, (req, res) -> reached.incrementAndGet());
                assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
            } finally {
                Thread.interrupted();
            }
            assertThat(response.getStatus()).isEqualTo(503);
            assertThat(response.getHeaders("Retry-After")).containsExactly("1");
            assertThat(response.getHeaders("Cache-Control")).containsExactly("no-store");
            assertThat(response.getContentType()).isEqualTo("application/problem+json");
            assertThat(body(response)).isEqualTo(SHUTTING_DOWN.get("problem").get(1));
            assertThat(reached).as("not passed on to the application").hasValue(0);
            assertThat(leasesLeft(filter)).as("its lease released").isEqualTo(1);
            assertThat(cycles).isEmpty();
        } finally {
            filter.destroy();
            java.nio.file.Files.deleteIfExists(rules);
        }
    }

    /**
     * As above, the client gone meanwhile: writing the 503's body fails (the connection is closed). The failure goes on
     * to the container, but the lease the request took before waiting is released all the same, not left to its
     * timeout (with {@code 1 concurrent}, every request of the key refused until then).
     */
    @Test
    void aRequestWaitingOnItsThreadWhoseClientIsGoneReleasesItsLeaseWhenItsAnswerCannotBeWritten() throws Exception {
        java.nio.file.Path rules = queueAndLease();
        RateLimitFilter filter = started(Map.of("rules", rules.toString(), "body", "problem"));
        try {
            List<Async> cycles = new CopyOnWriteArrayList<>();
            filter.doFilter(request("10.0.0.1", cycles, false), response(), (req, res) -> {});    // passes at once
            HttpServletResponse gone = fake(HttpServletResponse.class, (name, args) -> switch (name) {
                case "getOutputStream" -> new ServletOutputStream() {
                    @Override
                    public boolean isReady() {
                        return true;
                    }

                    @Override
                    public void setWriteListener(WriteListener listener) {}

                    @Override
                    public void write(int b) throws java.io.IOException {
                        throw new java.io.IOException("Broken pipe");
                    }
                };
                default -> null;
            });
            Thread.currentThread().interrupt();
            try {
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> filter.doFilter(
                        request("10.0.0.1", cycles, false), gone, (req, res) -> {}))
                        .isInstanceOf(java.io.IOException.class).hasMessage("Broken pipe");
            } finally {
                Thread.interrupted();
            }
            assertThat(leasesLeft(filter)).as("its lease released").isEqualTo(1);
        } finally {
            filter.destroy();
            java.nio.file.Files.deleteIfExists(rules);
        }
    }

    /**
     * destroy() answers a request waiting on its own thread too, at once (503, its lease released), rather than letting
     * it wait up to max-wait and then reach an application the container has stopped.
     */
    @Test
    void destroyAnswersARequestWaitingOnItsOwnThread() throws Exception {
        java.nio.file.Path rules = queueAndLease();
        RateLimitFilter filter = started(Map.of("rules", rules.toString()));
        try {
            List<Async> cycles = new CopyOnWriteArrayList<>();
            filter.doFilter(request("10.0.0.1", cycles, false), response(), (req, res) -> {});    // passes at once
            HttpServletResponse response = response();
            AtomicInteger reached = new AtomicInteger();
            List<Throwable> failed = new CopyOnWriteArrayList<>();
            Thread waiting = new Thread(() -> {
                try {
                    filter.doFilter(request("10.0.0.1", cycles, false), response, (req, res) -> reached.incrementAndGet());
                } catch (Throwable t) {
                    failed.add(t);
                }
            });
            waiting.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (waiting.getState() != Thread.State.TIMED_WAITING && waiting.getState() != Thread.State.WAITING) {
                assertThat(System.nanoTime()).as("the request waits its turn (a minute)").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(leasesLeft(filter)).as("held while it waits").isZero();

            filter.destroy();
            waiting.join(10_000);
            assertThat(waiting.isAlive()).as("answered at once, not after its minute").isFalse();
            assertThat(failed).isEmpty();
            assertThat(response.getStatus()).isEqualTo(503);
            assertThat(response.getHeaders("Retry-After")).containsExactly("1");
            assertThat(response.getHeaders("Cache-Control")).containsExactly("no-store");
            assertThat(body(response)).isEqualTo(SHUTTING_DOWN.get("envelope").get(1));
            assertThat(reached).as("not passed on to the stopped application").hasValue(0);
            assertThat(leasesLeft(filter)).as("its lease released").isEqualTo(1);
        } finally {
            filter.destroy();
            java.nio.file.Files.deleteIfExists(rules);
        }
    }

    /** A proxy of {@code type} answering with {@code answer} (by method name), or a default for the type. */
    @SuppressWarnings("unchecked")
    static <T> T fake(Class<T> type, BiFunction<String, Object[], Object> answer) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            switch (method.getName()) {
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "equals":
                    return proxy == args[0];
                case "toString":
                    return type.getSimpleName() + "@fake";
                default:
                    break;
            }
            Object out = answer.apply(method.getName(), args == null ? new Object[0] : args);
            if (out != null || !method.getReturnType().isPrimitive()) {
                return method.getReturnType() == void.class ? null : out;
            }
            Class<?> r = method.getReturnType();
            return r == boolean.class ? false : r == void.class ? null : r == long.class ? 0L
                    : r == int.class ? 0 : r == double.class ? 0d : r == float.class ? 0f : (Object) 0;
        });
    }
}
