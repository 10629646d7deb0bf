package io.sluice.examples.annotations;

import io.sluice.jaxrs.RateLimitFeature;
import jakarta.ws.rs.core.Application;
import java.util.Map;
import java.util.Set;

/**
 * The JAX-RS application: its resource and Sluice's {@link RateLimitFeature}, which applies the resource's
 * {@code @RateLimit} annotations. (The feature is a {@code @Provider}, so an application that relies on scanning finds it
 * without listing it.) {@code web.xml} serves it at {@code /api}; on a Jakarta EE server, {@code @ApplicationPath("/api")}
 * does the same.
 *
 * <p>The properties configure Sluice for this application, as a servlet filter's init parameters would; system
 * properties ({@code -Dsluice.headers=both}) and environment variables ({@code SLUICE_HEADERS}) still override them.
 */
public class BooksApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(BookResource.class, RateLimitFeature.class);
    }

    @Override
    public Map<String, Object> getProperties() {
        return Map.of("sluice.headers", "both", "sluice.body", "envelope");
    }
}
