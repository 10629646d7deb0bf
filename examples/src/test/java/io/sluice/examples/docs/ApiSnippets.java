package io.sluice.examples.docs;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.Engine;
import io.sluice.core.Limiter;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.Store;
import io.sluice.micrometer.MicrometerMetrics;
import io.sluice.redis.AdmissionQueue;
import io.sluice.redis.RedisStore;
import java.time.Duration;
import java.util.Set;
import redis.clients.jedis.UnifiedJedis;

/**
 * The programmatic snippets of docs/redis.md, docs/queueing-and-concurrency.md and
 * docs/observability.md, one method each, with what the docs take as given (a registry, a store, a payload) as
 * parameters. Compiled, never called.
 */
final class ApiSnippets {

    /** Where docs/queueing-and-concurrency.md sends what it dequeues. */
    interface Partner {
        void send(String payload);
    }

    private ApiSnippets() {}

    /** docs/redis.md, the builder. */
    static RedisStore redisStore(UnifiedJedis applicationsUnifiedJedis) {
        RedisStore store = RedisStore.builder()
                .url("rediss://app:secret@redis.internal:6380/2")   // redis://[user:password@]host:port[/db]; rediss:// is TLS
                .timeout(Duration.ofMillis(50))                      // the time budget of one call (default 50 ms)
                .poolSize(16)                                        // pooled connections (default 16)
                .prefix("shop")                                      // keys shop:<rule>:<key> (default "sluice")
                .build();
        RedisStore.builder().sentinel("mymaster", Set.of("10.0.0.5:26379", "10.0.0.6:26379")).build();
        RedisStore.builder().cluster(Set.of("10.0.0.7:7000", "10.0.0.8:7000")).build();
        RedisStore.builder().client(applicationsUnifiedJedis).build();   // a Jedis client you own (Jedis 8 RedisClient etc.)
        return store;
    }

    /** docs/queueing-and-concurrency.md, the admission queue. */
    static void admissionQueue(String json, String hostName, Partner partner) {
        Engine engine = Engine.builder().store(RedisStore.builder().url("redis://redis:6379").build()).build();
        Limiter pace = engine.limiter("invoices", Policy.parse("20/1s"));            // 20 jobs a second, fleet-wide
        try (AdmissionQueue invoices = AdmissionQueue.builder("invoices").url("redis://redis:6379")
                .bound(1_000).claimTimeout(Duration.ofSeconds(30)).pace(pace).build()) {
            AdmissionQueue.Admission a = invoices.offer(json);
            if (!a.accepted()) {
                // full: answer 429 with Retry-After a.retryAfter() (the fleet's pace needs that long to free a place)
            }
            invoices.consume("workers", hostName + "-1", entry -> partner.send(entry.payload()));  // one thread each
            invoices.outcome(a.id());          // QUEUED, PROCESSING (by whom), DONE or FAILED (when, by whom, the error)
            invoices.pending();                // entries waiting or in progress: at most the bound
            invoices.processed();              // outcomes recorded
        }
    }

    /** docs/observability.md, Micrometer by hand. */
    static Engine micrometer(MeterRegistry registry, Store store) {
        MicrometerMetrics metrics = new MicrometerMetrics(registry);
        Engine engine = Engine.builder().store(metrics.instrument(store)).listener(metrics).build();
        metrics.bind(engine);            // circuit, leases, adaptive limits, shared settings
        return engine;
    }
}
