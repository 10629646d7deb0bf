package io.sluice.jaxrs;

import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.ws.rs.core.Application;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.jboss.resteasy.core.ResteasyDeploymentImpl;
import org.jboss.resteasy.plugins.server.servlet.HttpServletDispatcher;
import org.jboss.resteasy.spi.ResteasyDeployment;

/**
 * RESTEasy's {@link HttpServletDispatcher} over a deployment of the application instance, started when the servlet
 * is initialized (as in a container: after the web application's initializers have run).
 */
final class Resteasy implements JaxrsServer.Implementation {
    @Override
    public ServletHolder servlet(Application application, ServletContextHandler context) {
        context.setInitParameter("resteasy.servlet.mapping.prefix", "/api");
        ServletHolder holder = new ServletHolder(new HttpServletDispatcher() {
            @Override
            public void init(ServletConfig config) throws ServletException {
                ResteasyDeployment deployment = new ResteasyDeploymentImpl();
                deployment.setApplication(application);
                deployment.start();
                config.getServletContext().setAttribute(ResteasyDeployment.class.getName(), deployment);
                super.init(config);
            }
        });
        holder.setInitOrder(1);          // at start-up, so a deployment that fails stops the server's start
        return holder;
    }
}
