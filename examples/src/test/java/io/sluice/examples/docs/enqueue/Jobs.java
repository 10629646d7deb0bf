package io.sluice.examples.docs.enqueue;

import static io.sluice.examples.docs.enqueue.Work.hostName;
import static io.sluice.examples.docs.enqueue.Work.process;

import io.sluice.core.Engine;
import io.sluice.core.policy.Policy;
import io.sluice.redis.AdmissionQueue;
import io.sluice.redis.RedisStore;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;

/** docs/enqueue.md: registering a queue and its workers. Compiled, never run (it names a Redis of the environment). */
@WebListener
public class Jobs implements ServletContextListener {
    private Engine engine;
    private AdmissionQueue queue;

    @Override
    public void contextInitialized(ServletContextEvent e) {
        String redis = System.getenv("SLUICE_REDIS_URL");                   // redis://redis:6379
        engine = Engine.builder().store(RedisStore.builder().url(redis).build()).build();
        queue = AdmissionQueue.builder("jobs").url(redis).bound(1_000)
                .pace(engine.limiter("jobs-pace", Policy.parse("20/1s")))      // the fleet's pace
                .build();
        e.getServletContext().setAttribute("io.sluice.queue.jobs", queue.asJobQueue());
        for (int i = 0; i < 4; i++) {                                       // this node's workers
            queue.consume("workers", hostName() + "-" + i, entry -> process(entry.payload()));
        }
    }

    @Override
    public void contextDestroyed(ServletContextEvent e) {
        queue.close();        // stops the workers: each finishes the job in hand
        engine.close();
    }
}
