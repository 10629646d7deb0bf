package io.sluice.filter;

import static io.sluice.filter.HttpLoad.allowed;
import static io.sluice.filter.HttpLoad.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.LeaseCounts;
import io.sluice.core.testing.Await;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Leased permits ({@link FaultMatrixIT}): the filter on Redis with {@code 40/1h leased 100ms} per {@code X-Client}, so
 * {@value #BURST} at once (the lease time's worth, one permit, is held in reserve). The load moves to the next client
 * every {@value #PER_CLIENT} requests, each client's requests fast enough for the node to take blocks of its permits
 * and answer from them, and never near the limit. Exact, with leasing, means: a fresh client sending more than the
 * limit is admitted no more than {@value #BURST} times, and no fewer than {@value #BURST} less the permits that lapsed
 * in blocks meanwhile; and blocks answer requests again.
 */
final class LeasedOnRedis implements Capability {

    /** The permits a fresh client gets at once: {@value}. */
    static final int BURST = 39;
    /** The requests of one client of the load: {@value}, well under the burst. */
    private static final int PER_CLIENT = 20;

    private final FilterServer server;
    private final AtomicLong sent = new AtomicLong();
    private LeaseCounts recovered;

    LeasedOnRedis(FaultyRedis redis) throws Exception {
        server = FilterServer.startOnSystemClock(Map.of("limit", "40/1h leased 100ms", "key", "header:X-Client",
                "store", redis.url()));
    }

    private LeaseCounts counts() {
        return server.door().engine().leaseCounts();
    }

    /**
     * Every fresh client's burst is exact; blocks answer within a few of them (a key leases once it comes often
     * enough, which a first burst on a cold JVM on a loaded machine may not reach).
     */
    @Override
    public void arrange() {
        AtomicLong attempt = new AtomicLong();
        Await.until("blocks answering a fresh client's exact burst", Duration.ofSeconds(10), () -> {
            LeaseCounts before = counts();
            int admitted = allowed(server, "/", "arranged-" + attempt.incrementAndGet(), BURST + 6);
            LeaseCounts after = counts();
            long lapsed = after.permitsLapsed() - before.permitsLapsed();
            assertThat(admitted).as("admitted of a fresh client's burst, %d permits lapsed", lapsed)
                    .isLessThanOrEqualTo(BURST).isGreaterThanOrEqualTo((int) (BURST - lapsed));
            return after.leasedDecisions() > before.leasedDecisions();
        });
    }

    /**
     * @return whether a fresh client's burst of more than the limit was admitted exactly, as the class comment says,
     *     with some of its requests answered from blocks
     */
    private boolean exactBurst(String client) {
        LeaseCounts before = counts();
        int admitted = allowed(server, "/", client, BURST + 6);
        LeaseCounts after = counts();
        long lapsed = after.permitsLapsed() - before.permitsLapsed();
        return admitted <= BURST && admitted + lapsed >= BURST
                && after.leasedDecisions() > before.leasedDecisions();
    }

    @Override
    public HttpLoad load() {
        return new HttpLoad(2, () -> get(server, "/", "load-" + sent.getAndIncrement() / PER_CLIENT));
    }

    @Override
    public void awaitRecovered(Fault fault) {
        AtomicLong attempt = new AtomicLong();
        Await.until("exact on a fresh client, blocks answering", Duration.ofSeconds(10),
                () -> exactBurst("recovered-" + attempt.incrementAndGet()));
        recovered = counts();
    }

    @Override
    public Held verify(Fault fault, HttpLoad load, long healStartMillis) {
        assertThat(load.statuses.keySet()).as("clients under their limit, or answered by allow: all 200")
                .containsOnly(200);
        LeaseCounts end = counts();
        assertThat(end.leasedDecisions()).as("blocks answered the load after recovery")
                .isGreaterThan(recovered.leasedDecisions());
        return new Held(0, String.format("leasing: %d decisions from blocks, %d by Redis, %d takes, %d permits lapsed",
                end.leasedDecisions(), end.storeDecisions(), end.takes(), end.permitsLapsed()));
    }

    @Override
    public void close() throws Exception {
        server.close();
    }
}
