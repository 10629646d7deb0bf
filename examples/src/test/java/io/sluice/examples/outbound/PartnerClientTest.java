package io.sluice.examples.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sluice.core.Engine;
import io.sluice.core.RateLimitExceededException;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.filter.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.ProcessingException;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PartnerClient} against a partner that allows 3 calls a minute, served by an embedded Jetty limited by Sluice's
 * own servlet filter: the client's limit (100 a minute) is higher than the partner's, so it learns the partner's from
 * its answers and stops sending before the partner has to refuse.
 */
class PartnerClientTest {

    private final AtomicInteger answered = new AtomicInteger();
    private Server partner;
    private URI base;

    @BeforeEach
    void startPartner() throws Exception {
        partner = new Server();
        ServerConnector connector = new ServerConnector(partner);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        partner.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        FilterHolder sluice = new FilterHolder(new RateLimitFilter());
        sluice.setInitParameters(Map.of("limit", "3/1m", "key", "global", "name", "partner"));
        context.addFilter(sluice, "/api/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                answered.incrementAndGet();
                resp.setContentType("text/plain");
                resp.getWriter().write("ok");
            }
        }), "/api/*");
        partner.setHandler(context);
        partner.start();
        base = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/api/");
    }

    @AfterEach
    void stopPartner() throws Exception {
        partner.stop();
    }

    @Test
    void theClientStopsWhenThePartnersBudgetIsSpent() throws Exception {
        ManualTimeSource clock = new ManualTimeSource();        // nothing comes back while the test runs
        try (Engine engine = Engine.builder().timeSource(clock).build();
                PartnerClient client = new PartnerClient(engine, base)) {
            assertThat(client.orders()).isEqualTo("ok");
            assertThat(client.invoice("7").statusCode()).isEqualTo(200);
            assertThat(client.orders()).isEqualTo("ok");        // the partner: RateLimit "partner";r=0;t=20
            ProcessingException e = catchThrowableOfType(ProcessingException.class, client::orders);
            RateLimitExceededException refused = (RateLimitExceededException) e.getCause();
            assertThat(refused.retryAfter()).isGreaterThan(Duration.ofSeconds(2));
            catchThrowableOfType(RateLimitExceededException.class, () -> client.invoice("8"));
            assertThat(answered.get()).as("calls the partner answered").isEqualTo(3);
        }
    }
}
