package io.sluice.examples.docs.jaxrs;

import io.sluice.jaxrs.RateLimitFeature;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Set;

/** docs/jaxrs.md: registering the feature (the Jersey line is a comment there too: Jersey is not compiled against). */
@ApplicationPath("/api")
public class Api extends Application {
    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(RateLimitFeature.class, ReportResource.class);
    }
}
// Jersey: new ResourceConfig(ReportResource.class).register(new RateLimitFeature(config));
