package io.sluice.examples.docs.outbound;

import io.sluice.client.OutboundLimit;
import io.sluice.client.OutboundRateLimit;
import io.sluice.client.SluiceClientFilter;
import io.sluice.client.SluiceHttpClient;
import io.sluice.core.Engine;
import io.sluice.core.RateLimitExceededException;
import io.sluice.core.Rule;
import io.sluice.redis.RedisStore;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The snippets of docs/outbound.md, one method each, with what the doc takes as given as parameters. Compiled, never
 * called.
 */
final class OutboundSnippets {

    private OutboundSnippets() {}

    /** docs/outbound.md, the JAX-RS client. */
    static Client jaxrs() {
        Engine engine = Engine.builder()
                .store(RedisStore.builder().url("redis://redis.internal:6379").build())   // the fleet's Redis
                .build();
        OutboundLimit github = OutboundLimit.builder("github", "5000/1h")
                .key("acct-42")                          // the account the remote counts in: one budget per account
                .maxWait(Duration.ofSeconds(2))          // wait up to 2 s for a permit or a pause's end, else fail
                .build();
        Client client = ClientBuilder.newClient().register(SluiceClientFilter.of(engine, github));
        return client;
    }

    /** docs/outbound.md, a refused call. */
    static String refused(Client client) {
        try {
            return client.target("https://api.github.example/repos").request().get(String.class);
        } catch (ProcessingException e) {
            if (e.getCause() instanceof RateLimitExceededException limited) {
                return "try again in " + limited.retryAfter();      // not sent: the fleet's budget is spent
            }
            throw e;
        }
    }

    /** docs/outbound.md, every setting. */
    static OutboundLimit everySetting() {
        return OutboundLimit.builder("partner", "100/1m")
                .key("acct-42")                              // default: the limit's name
                .cost(1)                                     // permits per call
                .maxWait(Duration.ofSeconds(5))              // default 5 s; zero: fail at once
                .maxRemotePause(Duration.ofMinutes(10))      // default 10 min, at most a day
                .onStoreFailure(Rule.FailureMode.ALLOW)      // ALLOW (default), DENY or LOCAL
                .retries(2, Duration.ofSeconds(30))          // default 0: a 429 is the caller's
                .retryNonIdempotent(false)                   // default: POST and PATCH are never retried
                .learnPolicy(true)                           // default: RateLimit-Policy may lower the limit
                .build();
    }

    /** docs/outbound.md, a MicroProfile Rest Client interface. */
    @OutboundRateLimit(name = "geocoder", limit = "10/1s", key = "acct-42", maxWait = "2s")
    @Path("/geocode")
    public interface GeocoderApi {
        @GET
        String geocode();

        @GET
        @Path("/batch")
        @OutboundRateLimit(name = "geocoder-batch", limit = "1/1m", maxWait = "0s")
        String batch();
    }

    /** docs/outbound.md, registering the interface's limits. */
    static SluiceClientFilter restClient(Engine engine) {
        SluiceClientFilter filter = SluiceClientFilter.forInterface(engine, GeocoderApi.class);
        // RestClientBuilder.newBuilder().baseUri(uri).register(filter).build(GeocoderApi.class)
        return filter;
    }

    /** docs/outbound.md, java.net.http. */
    static HttpResponse<String> httpClient(Engine engine, OutboundLimit github) throws IOException,
            InterruptedException {
        SluiceHttpClient client = SluiceHttpClient.wrap(HttpClient.newHttpClient(), engine, github);
        HttpRequest request = HttpRequest.newBuilder(URI.create("https://api.github.example/repos")).build();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        client.sendAsync(request, HttpResponse.BodyHandlers.ofString());    // the same, on the client's executor
        return response;
    }
}
