package io.sluice.benchmarks;

import io.sluice.client.OutboundLimit;
import io.sluice.client.SluiceClientFilter;
import io.sluice.client.SluiceHttpClient;
import io.sluice.core.Engine;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.client.WebTarget;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The cost of an outbound limit per call (issue 33): a Jersey client with {@link SluiceClientFilter} against the same
 * client without it, and a {@code java.net.http.HttpClient} wrapped in {@link SluiceHttpClient} against the bare one,
 * on an in-memory limit that no load reaches ({@code 1000000/1s}), one caller, calling a trivial servlet of an embedded
 * Jetty in the same JVM that answers the {@code RateLimit} and {@code RateLimit-Policy} fields a Sluice remote sends (so
 * each answer is read, as in use). The rows are interleaved call by call, the first rotated each turn, so that the
 * shared machine's load meets them alike: the figure is each round's ratio of the median time per call.
 *
 * <p>{@code C OutboundCost <seconds per row> <rounds>}.
 */
public final class OutboundCost {

    private OutboundCost() {}

    /** One way of calling: a call, and what it is called. */
    private interface Caller {
        void call() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Server server = remote();
        URI uri = URI.create("http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort()
                + "/orders");
        try (Engine engine = Engine.builder().build()) {
            OutboundLimit limit = OutboundLimit.builder("remote", "1000000/1s").maxWait(Duration.ZERO).build();
            Client plain = ClientBuilder.newClient();
            Client filtered = ClientBuilder.newClient().register(SluiceClientFilter.of(engine, limit));
            HttpClient bare = HttpClient.newHttpClient();
            SluiceHttpClient wrapped = SluiceHttpClient.wrap(HttpClient.newHttpClient(), engine, limit);
            HttpRequest request = HttpRequest.newBuilder(uri).build();
            Map<String, Caller> rows = new LinkedHashMap<>();
            WebTarget plainTarget = plain.target(uri);
            WebTarget filteredTarget = filtered.target(uri);
            rows.put("jaxrs-plain", () -> plainTarget.request().get(String.class));
            rows.put("jaxrs-sluice", () -> filteredTarget.request().get(String.class));
            rows.put("httpclient-plain", () -> bare.send(request, HttpResponse.BodyHandlers.ofString()));
            rows.put("httpclient-sluice", () -> wrapped.send(request, HttpResponse.BodyHandlers.ofString()));
            run(rows, seconds, rounds);
            plain.close();
            filtered.close();
        } finally {
            server.stop();
        }
    }

    private static void run(Map<String, Caller> rows, double seconds, int rounds) throws Exception {
        List<String> names = new ArrayList<>(rows.keySet());
        List<Caller> callers = names.stream().map(rows::get).toList();
        measure(callers, 2.0);          // warm-up
        System.out.println("round,row,median_us,mean_us,calls");
        for (int round = 1; round <= rounds; round++) {
            long[][] nanos = measure(callers, seconds);
            double[] median = new double[names.size()];
            for (int k = 0; k < names.size(); k++) {
                long[] t = nanos[k];
                median[k] = t[t.length / 2] / 1000.0;
                System.out.printf(Locale.ROOT, "%d,%s,%.1f,%.1f,%d%n", round, names.get(k), median[k],
                        Arrays.stream(t).average().orElse(0) / 1000.0, t.length);
            }
            System.out.printf(Locale.ROOT, "%d,ratio jaxrs-sluice/jaxrs-plain (median),%.3f%n", round,
                    median[1] / median[0]);
            System.out.printf(Locale.ROOT, "%d,ratio httpclient-sluice/httpclient-plain (median),%.3f%n", round,
                    median[3] / median[2]);
        }
    }

    /**
     * Calls every row once in turn, the first one rotated each turn, for {@code seconds}: neighbouring calls of the
     * rows meet the same load.
     *
     * @return each row's call times, ns, sorted
     */
    private static long[][] measure(List<Caller> callers, double seconds) throws Exception {
        int n = callers.size();
        long[][] times = new long[n][1024];
        int calls = 0;
        long end = System.nanoTime() + (long) (seconds * 1e9);
        for (int turn = 0; System.nanoTime() < end; turn++) {
            if (calls == times[0].length) {
                for (int k = 0; k < n; k++) {
                    times[k] = Arrays.copyOf(times[k], calls * 2);
                }
            }
            for (int j = 0; j < n; j++) {
                int k = (j + turn) % n;
                long t0 = System.nanoTime();
                callers.get(k).call();
                times[k][calls] = System.nanoTime() - t0;
            }
            calls++;
        }
        for (int k = 0; k < n; k++) {
            times[k] = Arrays.copyOf(times[k], calls);
            Arrays.sort(times[k]);
        }
        return times;
    }

    /** A trivial servlet on a free port that answers as a Sluice remote with room to spare does. */
    private static Server remote() throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        context.addServlet(new ServletHolder(new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                resp.setHeader("RateLimit-Policy", "\"remote\";q=1000000;w=1");
                resp.setHeader("RateLimit", "\"remote\";r=999999;t=1");
                resp.setContentType("text/plain");
                resp.getWriter().write("ok");
            }
        }), "/*");
        server.setHandler(context);
        server.start();
        return server;
    }
}
