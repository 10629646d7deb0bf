package io.sluice.examples.cdi;

import io.sluice.jaxrs.RateLimitFeature;
import jakarta.ws.rs.core.Application;
import java.util.Set;

/** The JAX-RS application at {@code /api} ({@code web.xml}): the resource and Sluice's {@link RateLimitFeature}. */
public class ReportsApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(ReportResource.class, RateLimitFeature.class);
    }
}
