package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.sluice.core.Engine;
import io.sluice.core.RateLimitExceededException;
import io.sluice.core.testing.ManualTimeSource;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.util.Map;
import org.eclipse.microprofile.rest.client.RestClientBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The filter on a real MicroProfile Rest Client (RESTEasy's): a proxy of an annotated interface, built by
 * {@link RestClientBuilder}, calling the embedded Jetty remote over a socket. The implementation, not the test, names
 * each call's method, and the filter picks that method's limit by it.
 */
class MicroProfileRestClientIT {

    /** A Rest Client interface: a limit for the API, one method's its own. */
    @Path("/scripted")
    @Produces(MediaType.TEXT_PLAIN)
    @OutboundRateLimit(name = "partner", limit = "2/1h", maxWait = "0s")
    public interface PartnerApi {
        @GET
        String orders();

        @GET
        @OutboundRateLimit(name = "partner-search", limit = "1/1h", maxWait = "0s")
        String search();
    }

    private final ManualTimeSource clock = new ManualTimeSource();
    private final Engine engine = Engine.builder().timeSource(clock).build();
    private RemoteApi remote;
    private PartnerApi api;

    @BeforeEach
    void start() throws Exception {
        remote = new RemoteApi("100/1h");
        api = RestClientBuilder.newBuilder().baseUri(remote.uri("/"))
                .register(SluiceClientFilter.forInterface(engine, PartnerApi.class))
                .build(PartnerApi.class);
    }

    @AfterEach
    void stop() throws Exception {
        if (api instanceof AutoCloseable c) {
            c.close();
        }
        remote.close();
        engine.close();
    }

    /** @return the denial that kept a call from being sent, wherever the implementation wrapped it */
    private static RateLimitExceededException refused(Runnable call) {
        Throwable t = catchThrowable(call::run);
        assertThat(t).as("the call was sent").isNotNull();
        while (t != null && !(t instanceof RateLimitExceededException)) {
            t = t.getCause();
        }
        assertThat(t).as("a RateLimitExceededException in the chain").isNotNull();
        return (RateLimitExceededException) t;
    }

    @Test
    void eachMethodSpendsItsOwnLimitOrTheInterfaces() {
        assertThat(api.search()).isEqualTo("ok");
        assertThat(refused(api::search).limitName()).isEqualTo("partner-search");
        assertThat(api.orders()).isEqualTo("ok");           // the interface's limit: search spent none of it
        assertThat(api.orders()).isEqualTo("ok");
        assertThat(refused(api::orders).limitName()).isEqualTo("partner");
        assertThat(remote.scriptedCalls.get()).as("calls that reached the remote").isEqualTo(3);
    }

    @Test
    void aPauseTheRemoteAsksForStopsEveryMethodOfItsLimit() {
        remote.script.add(new RemoteApi.Answer(429, Map.of("Retry-After", "60")));
        catchThrowable(api::orders);        // a 429: the Rest Client's default mapper throws, the filter has learnt
        assertThat(refused(api::orders).retryAfter()).isEqualTo(Duration.ofSeconds(60));
        assertThat(api.search()).isEqualTo("ok");           // another limit: not paused
        assertThat(remote.scriptedCalls.get()).isEqualTo(2);
    }
}
