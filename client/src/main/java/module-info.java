/**
 * Limits on a service's own outbound calls: a JAX-RS client filter ({@code SluiceClientFilter}) and a
 * {@code java.net.http.HttpClient} wrapper ({@code SluiceHttpClient}) that spend a named Sluice limit before each call
 * and learn from the remote API's answers ({@code 429}, {@code Retry-After}, {@code RateLimit}, {@code X-RateLimit-*}),
 * through the engine's store, so that a fleet shares one budget per remote account. JAX-RS is optional: the wrapper
 * needs only the JDK.
 */
module io.sluice.client {
    requires transitive io.sluice.core;
    requires transitive java.net.http;
    requires static jakarta.ws.rs;

    exports io.sluice.client;
}
