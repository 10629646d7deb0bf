package io.sluice.demo;

import io.sluice.core.Engine;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.JobQueue;
import io.sluice.redis.AdmissionQueue;
import io.sluice.redis.RedisStore;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.time.Duration;
import java.util.UUID;

/**
 * Registers the queue of the demo's rule in {@code enqueue} mode ({@code jobs} in {@code WEB-INF/sluice-rules.yaml}):
 * servlet context attribute {@code io.sluice.queue.demo-jobs}, which the filter looks for at start-up. With
 * {@code SLUICE_REDIS_URL} set it is an {@link AdmissionQueue} on that Redis, processed by one worker of this node at a
 * fleet-wide pace of one job per 2 s; without it a {@link LocalJobQueue} in this JVM at the same pace. Either holds at
 * most 5 jobs. The "work" is a wait: the page shows the jobs move from QUEUED to PROCESSING to DONE.
 */
public class DemoJobs implements ServletContextListener {

    /** The queue's name, as the rule names it: {@value}. */
    public static final String QUEUE = "demo-jobs";
    static final int BOUND = 5;
    static final Duration INTERVAL = Duration.ofSeconds(2);

    private AutoCloseable[] owned = {};

    @Override
    public void contextInitialized(ServletContextEvent event) {
        String redis = System.getenv(DemoRateLimitFilter.REDIS_URL);
        JobQueue queue;
        if (redis == null || redis.isBlank()) {
            LocalJobQueue local = new LocalJobQueue(QUEUE, BOUND, INTERVAL);
            owned = new AutoCloseable[] {local};
            queue = local;
        } else {
            Engine engine = Engine.builder().store(RedisStore.builder().url(redis.trim()).build()).build();
            AdmissionQueue admission = AdmissionQueue.builder(QUEUE).url(redis.trim()).bound(BOUND)
                    .pace(engine.limiter("demo-jobs-pace", Policy.parse("1/2s"))).poolSize(4).build();
            admission.consume("demo-workers", "demo-" + UUID.randomUUID(), entry -> Thread.sleep(500));
            owned = new AutoCloseable[] {admission, engine};
            queue = admission.asJobQueue();
        }
        event.getServletContext().setAttribute("io.sluice.queue." + QUEUE, queue);
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        for (AutoCloseable c : owned) {
            try {
                c.close();
            } catch (Exception e) {
                event.getServletContext().log("demo jobs: could not close " + c, e);
            }
        }
    }
}
