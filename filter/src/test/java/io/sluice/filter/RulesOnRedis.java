package io.sluice.filter;

import static io.sluice.filter.HttpLoad.allowed;
import static io.sluice.filter.HttpLoad.awaitExactLimits;
import static io.sluice.filter.HttpLoad.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.LogCapture;
import io.sluice.filter.HttpLoad.Answer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Rules on Redis ({@link FaultMatrixIT}): the filter with {@code store=redis://...} and three {@code 5/1h} rules keyed
 * by {@code X-Client}, one per failure mode: {@code /open/**} allows, {@code /closed/**} denies (503),
 * {@code /shared/**} counts this node's share in memory. The load sends each request with a fresh key to one of the
 * three in turn, so Redis alone decides it: every answer a 200, but a 503 of the closed rule while calls fail.
 */
final class RulesOnRedis implements Capability {

    private static final String RULES = """
            defaults:
              key: header:X-Client
            rules:
              - name: open
                paths: [/open/**]
                limit: 5/1h
                on-store-failure: allow
              - name: closed
                paths: [/closed/**]
                limit: 5/1h
                on-store-failure: deny
              - name: shared
                paths: [/shared/**]
                limit: 5/1h
                on-store-failure: local
            """;
    private static final String OPEN = "/open/x";
    private static final String CLOSED = "/closed/x";
    private static final String SHARED = "/shared/x";
    private static final List<String> PATHS = List.of(OPEN, CLOSED, SHARED);

    private final FilterServer server;
    private final LogCapture log = new LogCapture("io.sluice");
    /** The statuses the load got, by path. */
    private final Map<String, Map<Integer, AtomicLong>> seen = new ConcurrentHashMap<>();
    private final AtomicLong sent = new AtomicLong();

    RulesOnRedis(FaultyRedis redis) throws Exception {
        Path rules = Files.createTempFile("sluice-fault-matrix", ".yaml");
        Files.writeString(rules, RULES);
        server = FilterServer.startOnSystemClock(Map.of("rules", rules.toString(), "store", redis.url()));
    }

    @Override
    public void arrange() {
        for (String path : PATHS) {
            assertThat(allowed(server, path, "arranged", 8)).as("%s: 5/1h", path).isEqualTo(5);
        }
    }

    @Override
    public HttpLoad load() {
        return new HttpLoad(3, () -> {
            String path = PATHS.get((int) (sent.getAndIncrement() % PATHS.size()));
            Answer a = get(server, path, UUID.randomUUID().toString());
            seen.computeIfAbsent(path, p -> new ConcurrentHashMap<>())
                    .computeIfAbsent(a.status(), s -> new AtomicLong()).incrementAndGet();
            return a;
        });
    }

    /**
     * Each rule by its failure mode, a burst of 8 on a fresh key: 8 admitted, 8 refused (503), this node's 5; each
     * answer well within 3 s.
     */
    @Override
    public void duringFault() {
        assertThat(statuses(OPEN, "during", 8)).as("allow").isEqualTo(Map.of(200, 8));
        assertThat(statuses(CLOSED, "during", 8)).as("deny: 503").isEqualTo(Map.of(503, 8));
        assertThat(statuses(SHARED, "during", 8)).as("local: this node's share of a one-node fleet, 5")
                .isEqualTo(Map.of(200, 5, 429, 3));
    }

    private Map<Integer, Integer> statuses(String path, String client, int requests) {
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        for (int i = 0; i < requests; i++) {
            Answer a = get(server, path, client);
            assertThat(a.millis()).as("answer while the fault lasts (ms)").isLessThan(3_000);
            statuses.merge(a.status(), 1, Integer::sum);
        }
        return statuses;
    }

    /** Exact again on every rule, and still exact on the next burst. */
    @Override
    public void awaitRecovered(Fault fault) {
        for (String path : PATHS) {
            awaitExactLimits(server, path, "recovered", 5);
            assertThat(allowed(server, path, "after", 8)).as("%s: still exact", path).isEqualTo(5);
        }
    }

    @Override
    public Held verify(Fault fault, HttpLoad load, long healStartMillis) {
        log.close();
        assertThat(counts(OPEN)).as("allow: every request admitted").containsOnlyKeys(200);
        assertThat(counts(SHARED)).as("local: fresh keys, each within this node's share").containsOnlyKeys(200);
        Map<Integer, Long> closed = counts(CLOSED);
        if (fault.transparent()) {
            assertThat(closed).as("deny: no call fell back, so not one 503").containsOnlyKeys(200);
        } else {
            assertThat(closed.keySet()).as("deny: 503 while calls fail, never another 5xx").isSubsetOf(200, 503);
        }
        if (fault == Fault.OUT_OF_MEMORY) {
            assertThat(log.messages()).as("the log says why").anyMatch(m -> m.contains("OOM"));
        }
        long denied = closed.getOrDefault(503, 0L);
        return new Held(denied, "deny rule: " + denied + " 503, allow and local: all 200");
    }

    private Map<Integer, Long> counts(String path) {
        Map<Integer, Long> out = new ConcurrentHashMap<>();
        seen.getOrDefault(path, Map.of()).forEach((status, n) -> out.put(status, n.get()));
        return out;
    }

    @Override
    public void close() throws Exception {
        log.close();
        server.close();
    }
}
