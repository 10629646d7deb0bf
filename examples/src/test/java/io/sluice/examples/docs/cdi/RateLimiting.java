package io.sluice.examples.docs.cdi;

import io.sluice.cdi.RateLimitedEvent;
import io.sluice.http.Parameters;
import io.sluice.http.SluiceConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.logging.Logger;

/** docs/cdi.md: a produced configuration and an observer of the 429s. Not a bean here: test classes are no archive. */
@ApplicationScoped
public class RateLimiting {
    private static final Logger log = Logger.getLogger(RateLimiting.class.getName());    // java.util.logging

    @Produces @Singleton
    SluiceConfig config() {
        return SluiceConfig.load(Parameters.of("sluice", Map.of("limit", "100/1m", "key", "principal"), "CDI"),
                SluiceConfig.files());
    }

    void denied(@Observes RateLimitedEvent e) {     // one per 429: FINE, not INFO, or a client over its limit floods the log
        log.fine(() -> "rate limited by " + e.rule() + ", key " + e.keyHash() + ", retry in " + e.retryAfterMicros() + " µs");
    }
}
