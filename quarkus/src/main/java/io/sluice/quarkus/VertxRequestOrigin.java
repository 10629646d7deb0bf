package io.sluice.quarkus;

import io.sluice.jaxrs.RateLimitFeature;
import io.sluice.jaxrs.internal.RequestOrigin;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Tells Sluice's JAX-RS filter what a servlet request would in a servlet container, for Quarkus REST, which runs on
 * Vert.x and has none: the path inside the application (the request path after {@code quarkus.http.root-path}, as a
 * servlet container leaves out the context path; the REST path {@code quarkus.rest.path}, like a servlet path, stays
 * in), and the client's address (the socket peer's, or the forwarded one when
 * {@code quarkus.http.proxy.proxy-address-forwarding} is on). Runs one priority before the rate-limit filter, for every
 * request Quarkus REST matched to a resource method; Quarkus REST finds it by its annotation in this jar's index.
 */
public class VertxRequestOrigin {

    /** The root path, without a trailing {@code /}: empty for {@code /}. */
    private final String root;

    @Inject
    VertxRequestOrigin(@ConfigProperty(name = "quarkus.http.root-path", defaultValue = "/") String rootPath) {
        this.root = rootPath.endsWith("/") ? rootPath.substring(0, rootPath.length() - 1) : rootPath;
    }

    @ServerRequestFilter(priority = RateLimitFeature.PRIORITY - 1)
    public void capture(ContainerRequestContext request, HttpServerRequest vertx) {
        SocketAddress peer = vertx.remoteAddress();
        request.setProperty(RequestOrigin.PROPERTY, new RequestOrigin(
                inApplication(request.getUriInfo().getRequestUri().getPath()), peer == null ? null : peer.hostAddress()));
    }

    /** @return {@code path} (decoded) without the root path, {@code /} for the root itself */
    String inApplication(String path) {
        String p = path == null ? "" : path;
        if (!root.isEmpty() && p.startsWith(root) && (p.length() == root.length() || p.charAt(root.length()) == '/')) {
            p = p.substring(root.length());
        }
        return p.isEmpty() ? "/" : p;
    }
}
