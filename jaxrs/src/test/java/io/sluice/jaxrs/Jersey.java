package io.sluice.jaxrs;

import jakarta.ws.rs.core.Application;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;

/** Jersey's servlet container. */
final class Jersey implements JaxrsServer.Implementation {
    @Override
    public ServletHolder servlet(Application application, ServletContextHandler context) {
        return new ServletHolder(new ServletContainer(ResourceConfig.forApplication(application)));
    }
}
