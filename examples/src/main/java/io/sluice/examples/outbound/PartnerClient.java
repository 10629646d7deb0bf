package io.sluice.examples.outbound;

import io.sluice.client.OutboundLimit;
import io.sluice.client.SluiceClientFilter;
import io.sluice.client.SluiceHttpClient;
import io.sluice.core.Engine;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Outbound limits: this application's own calls to a partner's API, which allows account {@code acct-42} 100 calls a
 * minute. Every node of the fleet builds its engine on the same Redis, so together they send at most 100 a minute;
 * when the partner answers 429 or says its budget is spent, every node stops until the partner's reset. The same
 * limit guards a JAX-RS client ({@link #orders()}) and a {@code java.net.http.HttpClient} ({@link #invoice(String)}).
 *
 * <pre>{@code
 * Engine engine = Engine.builder().store(RedisStore.builder().url("redis://redis:6379").build()).build();
 * PartnerClient partner = new PartnerClient(engine, URI.create("https://partner.example/api/"));
 * }</pre>
 */
public final class PartnerClient implements AutoCloseable {

    private final Client client;
    private final SluiceHttpClient http;
    private final URI base;

    /**
     * @param engine one engine (and store) for all the limits of the application
     * @param base the partner API's address
     */
    public PartnerClient(Engine engine, URI base) {
        this.base = base;
        OutboundLimit partner = OutboundLimit.builder("partner", "100/1m")
                .key("acct-42")                         // the account the partner counts our calls in
                .maxWait(Duration.ofSeconds(2))         // wait up to 2 s for a permit, else fail
                .retries(2, Duration.ofSeconds(30))     // a GET answered 429: sent again when the pause ends
                .build();
        this.client = ClientBuilder.newClient().register(SluiceClientFilter.of(engine, partner));
        this.http = SluiceHttpClient.wrap(HttpClient.newHttpClient(), engine, partner);
    }

    /**
     * @return the partner's orders
     * @throws jakarta.ws.rs.ProcessingException caused by {@code RateLimitExceededException} when no permit comes
     *     within 2 s (its {@code retryAfter()} says how long to wait)
     */
    public String orders() {
        return client.target(base).path("orders").request().get(String.class);
    }

    /**
     * @return the partner's answer to a request for an invoice
     * @throws io.sluice.core.RateLimitExceededException when no permit comes within 2 s
     */
    public HttpResponse<String> invoice(String id) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("invoices/" + id)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        client.close();
    }
}
