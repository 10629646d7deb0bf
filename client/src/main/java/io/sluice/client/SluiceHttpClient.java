package io.sluice.client;

import io.sluice.core.Engine;
import io.sluice.core.RateLimitExceededException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A {@link HttpClient} with a Sluice limit in front of its calls, for code that does not use JAX-RS: the same
 * behaviour as {@link SluiceClientFilter} (spend the limit first, learn from every answer, retry a 429 as configured),
 * the same code.
 *
 * <pre>
 * SluiceHttpClient github = SluiceHttpClient.wrap(HttpClient.newHttpClient(), engine,
 *         OutboundLimit.builder("github", "5000/1h").key("acct-42").build());
 * HttpResponse&lt;String&gt; r = github.send(request, HttpResponse.BodyHandlers.ofString());
 * </pre>
 *
 * <p>{@link #send} throws {@link RateLimitExceededException} (unchecked) without sending when the permits cannot be
 * had within the limit's {@code maxWait}. {@link #sendAsync} does the same work, waits included, on the client's
 * executor (else on a thread of a shared pool of daemon threads), and completes exceptionally with it.
 */
public final class SluiceHttpClient {

    /** Runs {@link #sendAsync} for clients without an executor of their own: daemon threads, made as needed. */
    private static final ExecutorService SHARED = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sluice-client");
        t.setDaemon(true);
        return t;
    });

    private final HttpClient client;
    private final OutboundGate gate;

    private SluiceHttpClient(HttpClient client, OutboundGate gate) {
        this.client = client;
        this.gate = gate;
    }

    /** @return {@code client} with {@code limit} in front of every call */
    public static SluiceHttpClient wrap(HttpClient client, Engine engine, OutboundLimit limit) {
        Objects.requireNonNull(client, "client");
        return new SluiceHttpClient(client, new OutboundGate(engine, limit));
    }

    /** @return the client this one calls through */
    public HttpClient client() {
        return client;
    }

    /**
     * Spends the limit (waiting up to its {@code maxWait}), sends {@code request}, learns from the answer, and sends it
     * again while it is answered 429 and the limit's retries allow.
     *
     * @return the last answer
     * @throws RateLimitExceededException when the first call's permits cannot be had in time: nothing was sent
     * @throws InterruptedException when interrupted while waiting or sending
     */
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        long started = gate.time().nowMicros();
        gate.enter();
        HttpResponse<T> first = sendAndLearn(request, handler);
        return gate.retry(request.method(), first, started, timeout -> {
            gate.enter(timeout);
            return sendAndLearn(request, handler);
        }, new Responses<>());
    }

    /**
     * {@link #send}, on the client's executor (or a shared pool of daemon threads when it has none).
     *
     * @return the last answer; completed exceptionally with {@link RateLimitExceededException} when the permits could
     *     not be had in time
     */
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        Executor executor = client.executor().orElse(SHARED);
        return CompletableFuture.supplyAsync(() -> {
            try {
                return send(request, handler);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CompletionException(e);
            }
        }, executor);
    }

    private <T> HttpResponse<T> sendAndLearn(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        HttpResponse<T> r = client.send(request, handler);
        gate.learn(r.statusCode(), r.headers()::allValues);
        return r;
    }

    private static final class Responses<T> implements OutboundGate.Responses<HttpResponse<T>> {
        @Override
        public int status(HttpResponse<T> r) {
            return r.statusCode();
        }

        @Override
        public void discard(HttpResponse<T> r) {
            if (r.body() instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {         // a body that cannot close is let go of all the same
                    // nothing to do: the next answer replaces it
                }
            }
        }
    }
}
