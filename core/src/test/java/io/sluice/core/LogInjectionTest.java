package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.LogCapture;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A hostile client's text in the exceptions the engine logs: an application's key resolver or listener that quotes the
 * request, a store that quotes a key. Every line a log reader sees is bounded, and none is forged.
 */
class LogInjectionTest {

    /** A forged log line after CR LF, a terminal escape that clears the screen, and 100 kB. */
    private static final String HOSTILE = "7\r\nFORGED WARNING: admin logged in\u001b[2J" + "x".repeat(100_000);
    /** As a key: under 64 characters, so kept as it is (not hashed), CR LF and all. */
    private static final String HOSTILE_KEY = "acct\r\nFORGED WARNING: admin logged in\u001b[2J";

    private final ManualTimeSource time = new ManualTimeSource();
    private final MemoryStore memory = MemoryStore.builder().timeSource(time).build();

    private static RequestView request(String header, String value) {
        return RequestView.builder("GET", "/api").remoteAddress("203.0.113.9").header(header, value).build();
    }

    /** No line starts a forged record, none is unbounded, none drives a terminal; {@code expected} are all there. */
    private static void assertSafe(LogCapture log, String... expected) {
        assertThat(log.lines()).as("logged").isNotEmpty();
        assertThat(log.unsafeLines("FORGED", 1_000)).as("forged, unbounded or with an escape sequence").isEmpty();
        assertThat(String.join("\n", log.lines())).as("still names the problem").contains(expected);
    }

    @Test
    void aKeyResolverThatQuotesTheRequestInItsExceptionIsLoggedEscapedAndBounded() {
        // an application's resolver: the account number of a header, as a NumberFormatException quotes it
        Engine engine = Engine.builder().timeSource(time).store(memory)
                .rule(Rule.builder("log-injection-per-account").policy("10/1m")
                        .key(r -> "acct-" + Long.parseLong(r.header("X-Account"))).build())
                .build();
        try (LogCapture log = new LogCapture(Rule.class.getName())) {
            engine.check(request("X-Account", HOSTILE));

            assertSafe(log, "rule \"log-injection-per-account\": the key resolver threw",
                    "java.lang.NumberFormatException: For input string: \"7\\r\\nFORGED WARNING: admin logged in"
                            + "\\u001b[2Jxxx", "(100058 characters)",
                    "\tat " + LogInjectionTest.class.getName());
        }
    }

    @Test
    void aListenerThatQuotesTheRequestInItsExceptionIsLoggedEscapedAndBounded() {
        DecisionListener tenants = (request, decision, event) -> {
            throw new IllegalArgumentException("unknown tenant " + request.header("X-Tenant"));
        };
        Engine engine = Engine.builder().timeSource(time).store(memory).listener(tenants)
                .rule(Rule.builder("per-ip").policy("10/1m").key(RequestView::remoteAddress).build()).build();
        try (LogCapture log = new LogCapture(Engine.class.getName())) {
            engine.check(request("X-Tenant", HOSTILE));

            assertSafe(log, "failed (logged at most once a minute)",
                    "java.lang.IllegalArgumentException: unknown tenant 7\\r\\nFORGED", "(100053 characters)");
        }
    }

    /** A store (an application's own) whose failures quote the key they were about. */
    private static final class KeyQuotingStore extends ForwardingStore {
        final AtomicBoolean evaluateFails = new AtomicBoolean();
        final AtomicBoolean releaseFails = new AtomicBoolean();

        KeyQuotingStore(MemoryStore memory) {
            super(memory);
        }

        @Override
        protected void beforeEvaluate(List<Check> checks) {
            if (evaluateFails.get()) {
                throw new StoreException("no shard answers for key " + checks.get(0).key());
            }
        }

        @Override
        public void release(List<Lease> leases, long nowMicros) {
            if (releaseFails.get()) {
                throw new StoreException("cannot release key " + leases.get(0).key());
            }
            super.release(leases, nowMicros);
        }
    }

    @Test
    void aStoreFailureThatQuotesAKeyIsLoggedEscapedByTheBreakerAndTheCharge() {
        KeyQuotingStore store = new KeyQuotingStore(memory);
        Engine engine = Engine.builder().timeSource(time).store(store)
                .rule(Rule.builder("logins").policy("5/1m").key(r -> r.header("X-Account"))
                        .countStatuses(Set.of(401)).build()).build();
        RequestView hostile = request("X-Account", HOSTILE_KEY);
        try (LogCapture log = new LogCapture("io.sluice.core")) {
            Decision decision = engine.check(hostile);
            store.evaluateFails.set(true);
            engine.charge(hostile, decision, 401);

            assertSafe(log, "could not charge 1 rule(s) that count by outcome: no shard answers for key acct\\r\\nFORGED",
                    "a call failed; the rules' on-store-failure modes answer",
                    "io.sluice.core.store.StoreException: no shard answers for key acct\\r\\nFORGED");
        }
    }

    @Test
    void aStoreFailureThatQuotesAKeyIsLoggedEscapedWhenALeaseIsReleased() {
        KeyQuotingStore store = new KeyQuotingStore(memory);
        Engine engine = exports(store);
        RequestView hostile = request("X-Account", HOSTILE_KEY);
        try (LogCapture log = new LogCapture(Engine.class.getName())) {
            Decision decision = engine.check(hostile);
            store.releaseFails.set(true);
            engine.release(decision);

            assertSafe(log, "could not release 1 concurrency lease(s); they are released before a later store call"
                    + " (or expire): cannot release key acct\\r\\nFORGED");
        }
    }

    @Test
    void aStoreFailureThatQuotesAKeyIsLoggedEscapedWhenTheLeasesOfFailedCallsAreReleased() {
        KeyQuotingStore store = new KeyQuotingStore(memory);
        Engine engine = exports(store);
        RequestView hostile = request("X-Account", HOSTILE_KEY);
        try (LogCapture log = new LogCapture(Engine.class.getName())) {
            store.evaluateFails.set(true);
            engine.check(hostile);                   // its lease is kept, to be released before a later call
            store.evaluateFails.set(false);
            store.releaseFails.set(true);
            time.advance(Duration.ofSeconds(1));
            engine.check(request("X-Account", "another"));

            assertSafe(log, "could not release 1 concurrency lease(s) of failed store calls",
                    "io.sluice.core.store.StoreException: cannot release key acct\\r\\nFORGED");
        }
    }

    /** An engine of one concurrency rule, {@code exports}, keyed by the client's {@code X-Account} header. */
    private Engine exports(io.sluice.core.store.Store store) {
        return Engine.builder().timeSource(time).store(store)
                .rule(Rule.builder("exports").policy(Policy.concurrent(2)).key(r -> r.header("X-Account")).build())
                .build();
    }
}
