package io.sluice.jaxrs;

import jakarta.ws.rs.core.Application;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.jboss.resteasy.core.ResteasyDeploymentImpl;
import org.jboss.resteasy.plugins.server.servlet.HttpServletDispatcher;
import org.jboss.resteasy.spi.ResteasyDeployment;

/** RESTEasy's {@link HttpServletDispatcher} over a deployment of the application instance. */
final class Resteasy implements JaxrsServer.Implementation {
    @Override
    public ServletHolder servlet(Application application, ServletContextHandler context) {
        ResteasyDeployment deployment = new ResteasyDeploymentImpl();
        deployment.setApplication(application);
        deployment.start();
        context.setAttribute(ResteasyDeployment.class.getName(), deployment);
        context.setInitParameter("resteasy.servlet.mapping.prefix", "/api");
        return new ServletHolder(new HttpServletDispatcher());
    }
}
