package io.sluice.demo;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.restassured.response.Response;
import io.sluice.core.testing.RedisProcess;
import io.sluice.redis.RedisStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * docs/demo.md's "Two instances, one Redis": two demo WARs, each in a Jetty of its own with its own copy of Sluice (its own
 * class loader, engine and connection pool), pointed at one real {@code redis-server} share every limit: the servlet
 * filter's {@code /api/hello} (5 per 10 s) and the JAX-RS greeting's {@code @RateLimit} (3 per 10 s). With a store of
 * their own each would admit the whole limit, so these bursts, split between the two, fail unless the counters are
 * shared. The store is set as an operator would override it, {@code -Dsluice.store} (the demo guide's
 * {@code SLUICE_REDIS_URL} maps to the same parameter; {@code DemoRateLimitFilterTest} and {@code DemoApplicationTest}
 * check that mapping).
 */
class TwoInstancesIT {

    private static final Duration HELLO_WINDOW = Duration.ofSeconds(10);
    private static final Duration GREETING_REFILL = Duration.ofMillis(3333);

    private static RedisProcess redis;
    private static DemoServer first;
    private static DemoServer second;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisProcess.start();
        System.setProperty("sluice.trusted-proxies", "127.0.0.1");
        System.setProperty("sluice.store", redis.url() + "?timeout=2s");     // a budget no load on CI reaches
        Path war = Path.of(System.getProperty("demo.webapp", "target/sluice-demo-ee.war"));
        first = DemoServer.start(war, 0);
        second = DemoServer.start(war, 0);
    }

    @AfterAll
    static void stop() throws Exception {
        System.clearProperty("sluice.store");        // the other test classes of this JVM run the demo on memory
        try (RedisProcess r = redis; DemoServer a = first; DemoServer b = second) {
            // closed in reverse order: the demos, then Redis
        }
    }

    @Test
    void theFilterLimitIsSharedByBothInstances() {
        Burst burst = Burst.undisturbed(b -> b.withinOneWindow(HELLO_WINDOW), () -> {
            String client = RunningDemo.freshClient();
            return Burst.fire(7, i -> from(i < 3 ? first : second, client).get("/api/hello"));
        });

        assertThat(burst.statuses()).as("3 through the first, then 4 through the second: five in all")
                .containsExactly(200, 200, 200, 200, 200, 429, 429);
        assertThat(burst.responses()).extracting(r -> r.header("X-RateLimit-Remaining"))
                .containsExactly("4", "3", "2", "1", "0", "0", "0");
    }

    @Test
    void theJaxrsAnnotationLimitIsSharedByBothInstances() {
        Burst burst = Burst.undisturbed(b -> b.shorterThan(GREETING_REFILL), () -> {
            String client = RunningDemo.freshClient();
            return Burst.fire(4, i -> from(i % 2 == 0 ? first : second, client).get("/api/jaxrs/greeting"));
        });

        assertThat(burst.statuses()).as("alternating between the instances: three in all")
                .containsExactly(200, 200, 200, 429);
    }

    @Test
    void theCountersLiveInRedis() {
        for (int attempt = 1; ; attempt++) {
            String client = RunningDemo.freshClient();
            long start = System.currentTimeMillis();
            Response hello = from(first, client).get("/api/hello");
            // the client's part of the key is a keyed hash (nothing in clear at rest): the same store finds it
            try (Jedis jedis = new Jedis("127.0.0.1", redis.port());
                    RedisStore same = RedisStore.builder().url("redis://127.0.0.1:" + redis.port()).build()) {
                assertThat(jedis.keys("*" + client + "*")).as("no key names the client in clear").isEmpty();
                List<String> keys = List.copyOf(jedis.keys(same.key("hello", client)));
                Long ttl = keys.size() == 1 ? jedis.pttl(keys.get(0)) : null;
                Burst span = new Burst(List.of(hello), start, System.currentTimeMillis());
                if (!span.withinOneWindow(HELLO_WINDOW) && attempt < 5) {
                    continue;   // the window ended between the request and the read: its key expired with it, by design
                }
                assertThat(hello.statusCode()).isEqualTo(200);
                assertThat(keys).as("the client's key of the hello rule").hasSize(1);
                assertThat(ttl).as("with a time to live").isPositive();
                return;
            }
        }
    }

    private static io.restassured.specification.RequestSpecification from(DemoServer server, String client) {
        return given().baseUri("http://127.0.0.1").port(server.port()).header("X-Forwarded-For", client);
    }
}
