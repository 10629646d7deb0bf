package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sluice.core.RateLimitExceededException;
import io.sluice.core.Rule;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.Response;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JAX-RS client filter over real sockets: a Jersey client on each of two nodes that share one real Redis, calling
 * an embedded Jetty limited by Sluice's own servlet filter (so its headers are real) or scripted to answer 429.
 */
class OutboundJaxRsIT {

    private static RedisProcess redis;
    private TwoNodes nodes;
    private RemoteApi api;
    private Client clientA;
    private Client clientB;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = RedisProcess.start();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        redis.close();
    }

    private void start(String remoteLimit, OutboundLimit limit) throws Exception {
        api = new RemoteApi(remoteLimit);
        nodes = new TwoNodes(redis.url());
        clientA = ClientBuilder.newClient().register(SluiceClientFilter.of(nodes.a, limit));
        clientB = ClientBuilder.newClient().register(SluiceClientFilter.of(nodes.b, limit));
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {clientA, clientB, nodes, api}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private int get(Client client, String path) {
        try (Response r = client.target(api.uri(path)).request().get()) {
            return r.getStatus();
        }
    }

    /** @return the denial that kept the call from being sent */
    private RateLimitExceededException refused(Client client, String path) {
        ProcessingException e = catchThrowableOfType(ProcessingException.class, () -> get(client, path));
        assertThat(e).as("the call was sent").isNotNull();
        assertThat(e.getCause()).isInstanceOf(RateLimitExceededException.class);
        return (RateLimitExceededException) e.getCause();
    }

    @Test
    void twoNodesTogetherStayWithinTheRemotesLimit() throws Exception {
        start("6/1h", OutboundLimit.builder("partner", "6/1h").maxWait(Duration.ZERO).build());
        int sent = 0;
        int refused = 0;
        for (int i = 0; i < 10; i++) {
            try {
                assertThat(get(i % 2 == 0 ? clientA : clientB, "/api/orders")).isEqualTo(200);
                sent++;
            } catch (ProcessingException e) {
                assertThat(e.getCause()).isInstanceOf(RateLimitExceededException.class);
                refused++;
            }
        }
        // each node alone would have sent 5 of its 5 calls: 10 in all, 4 of them denied by the remote
        assertThat(sent).isEqualTo(6);
        assertThat(refused).isEqualTo(4);
        assertThat(api.admitted.get()).isEqualTo(6);
        assertThat(api.denied()).isZero();
    }

    @Test
    void theRemotesSpentBudgetPausesEveryNodeUntilItsReset() throws Exception {
        // the remote allows 2 an hour (GCRA: the next after 30 minutes); the local limit would allow far more
        start("2/1h", OutboundLimit.builder("partner", "100/1h").maxWait(Duration.ZERO)
                .maxRemotePause(Duration.ofHours(1)).build());
        assertThat(get(clientA, "/api/orders")).isEqualTo(200);
        assertThat(get(clientA, "/api/orders")).isEqualTo(200);    // RateLimit: "remote";r=0;t=1800
        RateLimitExceededException onB = refused(clientB, "/api/orders");
        assertThat(onB.retryAfter()).isBetween(Duration.ofMinutes(29), Duration.ofMinutes(30));
        assertThat(onB.limitName()).isEqualTo("partner");
        refused(clientA, "/api/orders");
        assertThat(api.received.get()).as("calls that reached the remote").isEqualTo(2);

        nodes.clock.advance(Duration.ofMinutes(30));
        get(clientB, "/api/orders");                    // the pause is over: sent (the remote runs on real time)
        assertThat(api.received.get()).isEqualTo(3);
    }

    @Test
    void aRetryAfterOnA429PausesBothNodes() throws Exception {
        start("100/1h", OutboundLimit.builder("partner", "100/1h").maxWait(Duration.ZERO).build());
        api.script.add(new RemoteApi.Answer(429, Map.of("Retry-After", "120")));
        assertThat(get(clientA, "/scripted")).isEqualTo(429);
        assertThat(refused(clientB, "/scripted").retryAfter()).isEqualTo(Duration.ofSeconds(120));
        assertThat(refused(clientA, "/scripted").retryAfter()).isEqualTo(Duration.ofSeconds(120));
        nodes.clock.advance(Duration.ofSeconds(120));
        assertThat(get(clientB, "/scripted")).isEqualTo(200);
        assertThat(api.scriptedCalls.get()).isEqualTo(2);
    }

    @Test
    void aHugeRetryAfterIsCutToTheCapAndGarbageToASecond() throws Exception {
        start("100/1h", OutboundLimit.builder("partner", "100/1h").maxWait(Duration.ZERO)
                .maxRemotePause(Duration.ofMinutes(10)).build());
        api.script.add(new RemoteApi.Answer(429, Map.of("Retry-After", "31536000")));      // a year
        assertThat(get(clientA, "/scripted")).isEqualTo(429);
        assertThat(refused(clientB, "/scripted").retryAfter()).isEqualTo(Duration.ofMinutes(10));
        nodes.clock.advance(Duration.ofMinutes(10));
        api.script.add(new RemoteApi.Answer(429, Map.of("Retry-After", "-7")));
        assertThat(get(clientB, "/scripted")).isEqualTo(429);
        assertThat(refused(clientA, "/scripted").retryAfter()).isEqualTo(Duration.ofSeconds(1));
        nodes.clock.advance(Duration.ofSeconds(1));
        assertThat(get(clientA, "/scripted")).isEqualTo(200);
    }

    @Test
    void aPublishedPolicyLowersTheLocalLimit() throws Exception {
        start("3/1h", OutboundLimit.builder("partner", "10/1h").maxWait(Duration.ZERO).build());
        for (int i = 0; i < 3; i++) {
            assertThat(get(i % 2 == 0 ? clientA : clientB, "/api/orders")).isEqualTo(200);
        }
        // what the remote published (3 an hour) is the limit in force now, on the node that learnt it
        assertThat(refused(clientA, "/api/orders").limit()).isEqualTo(3);
        assertThat(api.denied()).isZero();
    }

    @Test
    void aCallAnswered429IsRetriedOnceThePauseEndsIfIdempotent() throws Exception {
        start("100/1h", OutboundLimit.builder("partner", "100/1h").retries(2, Duration.ofSeconds(30)).build());
        api.script.add(new RemoteApi.Answer(429, Map.of("Retry-After", "2")));
        CompletableFuture<Integer> status = new CompletableFuture<>();
        Thread caller = new Thread(() -> status.complete(get(clientA, "/scripted")));
        caller.start();
        nodes.clock.awaitParked(caller, ManualTimeSource.START_MICROS + 2_000_000);
        nodes.clock.advance(Duration.ofSeconds(2));
        assertThat(status.get()).isEqualTo(200);
        assertThat(api.scriptedCalls.get()).isEqualTo(2);
    }

    @Test
    void aPostAnswered429IsNotRetried() throws Exception {
        start("100/1h", OutboundLimit.builder("partner", "100/1h").retries(2, Duration.ofSeconds(30)).build());
        api.script.add(new RemoteApi.Answer(429, Map.of("Retry-After", "2")));
        try (Response r = clientA.target(api.uri("/scripted")).request().post(Entity.text("order"))) {
            assertThat(r.getStatus()).isEqualTo(429);
        }
        assertThat(api.scriptedCalls.get()).isEqualTo(1);
    }

    @Test
    void retriesStopWhenThePauseOutlastsTheirTime() throws Exception {
        start("100/1h", OutboundLimit.builder("partner", "100/1h").retries(3, Duration.ofSeconds(30)).build());
        api.script.add(new RemoteApi.Answer(429, Map.of("Retry-After", "60")));
        assertThat(get(clientA, "/scripted")).isEqualTo(429);
        assertThat(api.scriptedCalls.get()).isEqualTo(1);
    }

    @Test
    void aRedisOutageAnswersByTheLimitsFailureMode() throws Exception {
        try (RedisProcess lost = RedisProcess.start(); RemoteApi remote = new RemoteApi("100/1h");
                TwoNodes fleet = new TwoNodes(lost.url())) {
            OutboundLimit.Builder limit = OutboundLimit.builder("partner", "100/1h").maxWait(Duration.ZERO);
            Client denying = ClientBuilder.newClient().register(SluiceClientFilter.of(fleet.a,
                    limit.onStoreFailure(Rule.FailureMode.DENY).build()));
            Client allowing = ClientBuilder.newClient().register(SluiceClientFilter.of(fleet.b,
                    OutboundLimit.builder("other", "100/1h").maxWait(Duration.ZERO).build()));
            api = remote;
            assertThat(get(denying, "/scripted")).isEqualTo(200);
            lost.kill();
            assertThat(refused(denying, "/scripted").retryAfter()).isEqualTo(Duration.ofSeconds(1));
            assertThat(get(allowing, "/scripted")).isEqualTo(200);
            assertThat(remote.scriptedCalls.get()).isEqualTo(2);
            denying.close();
            allowing.close();
            api = null;
        }
    }

    /** A client interface as a MicroProfile Rest Client declares it: a limit for the API, one method's its own. */
    @OutboundRateLimit(name = "partner", limit = "100/1h", maxWait = "0s")
    interface PartnerApi {
        String orders();

        @OutboundRateLimit(name = "partner-search", limit = "1/1h", maxWait = "0s")
        String search();
    }

    @Test
    void aClientInterfacesAnnotationsPickEachCallsLimitByTheInvokedMethod() throws Exception {
        api = new RemoteApi("100/1h");
        nodes = new TwoNodes(redis.url());
        clientA = ClientBuilder.newClient().register(SluiceClientFilter.forInterface(nodes.a, PartnerApi.class));
        Method search = PartnerApi.class.getMethod("search");
        Method orders = PartnerApi.class.getMethod("orders");
        // the property a Rest Client implementation sets on each request it makes for an interface method
        assertThat(call(search)).isEqualTo(200);
        ProcessingException e = catchThrowableOfType(ProcessingException.class, () -> call(search));
        assertThat(((RateLimitExceededException) e.getCause()).limitName()).isEqualTo("partner-search");
        assertThat(call(orders)).isEqualTo(200);
        assertThat(api.scriptedCalls.get()).isEqualTo(2);
    }

    private int call(Method m) {
        try (Response r = clientA.target(api.uri("/scripted")).request()
                .property(SluiceClientFilter.INVOKED_METHOD, m).get()) {
            return r.getStatus();
        }
    }
}
