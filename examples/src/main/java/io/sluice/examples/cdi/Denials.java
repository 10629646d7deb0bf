package io.sluice.examples.cdi;

import io.sluice.cdi.RateLimitedEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;

/**
 * Observes every denied request: Sluice fires one {@link RateLimitedEvent} per 429 (or 503 while the store is down),
 * synchronously on the request thread. Here it is logged and counted per rule; an application might alert, or feed
 * its own metrics. The event carries the rule, a hash of the key (never the key), the wait, the method and the path.
 * The line is at {@code FINE}: a line per denied request at {@code INFO} would let a client over its limit flood the
 * log, and the path is the client's text.
 */
@ApplicationScoped
public class Denials {

    private static final Logger LOG = Logger.getLogger(Denials.class.getName());

    private final Map<String, LongAdder> byRule = new ConcurrentHashMap<>();

    void denied(@Observes RateLimitedEvent event) {
        LOG.fine(() -> "rate limited by " + event.rule() + ": " + event.method() + " " + event.path() + ", key "
                + event.keyHash() + ", retry in " + event.retryAfterMicros() / 1000 + " ms");
        byRule.computeIfAbsent(event.rule(), rule -> new LongAdder()).increment();
    }

    /** @return the number of denied requests per rule name, sorted by name */
    public Map<String, Long> byRule() {
        Map<String, Long> counts = new TreeMap<>();
        byRule.forEach((rule, count) -> counts.put(rule, count.sum()));
        return counts;
    }
}
