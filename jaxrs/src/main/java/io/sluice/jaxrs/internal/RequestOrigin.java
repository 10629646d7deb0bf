package io.sluice.jaxrs.internal;

/**
 * What JAX-RS does not say of a request and {@link RateLimitRequestFilter} needs, as the servlet filter sees it: the
 * path inside the application (the servlet path plus path info in a servlet container; the request path after
 * {@code quarkus.http.root-path} in Quarkus REST), and the socket peer's address. A request filter of the runtime sets
 * it as request property {@value #PROPERTY}, one priority before the rate-limit filter: {@link ServletRequestCapture} in
 * a servlet container, {@code sluice-quarkus}'s in Quarkus REST, which runs on Vert.x and has no servlet request.
 *
 * @param path the path inside the application, starting with {@code /}
 * @param remoteAddress the socket peer's address
 */
public record RequestOrigin(String path, String remoteAddress) {

    /** The request property holding the origin: {@value}. */
    public static final String PROPERTY = "io.sluice.jaxrs.request-origin";
}
