package io.sluice.demo;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code GET /api/algorithms/{algorithm}}: one endpoint per algorithm, each limited by the rule of the same name in
 * {@code /WEB-INF/sluice-rules.yaml}. The concurrency endpoint holds its request for one second (in asynchronous mode:
 * no thread waits) so that requests in flight are visible.
 */
public class AlgorithmServlet extends HttpServlet {

    static final Set<String> ALGORITHMS = Set.of("fixed-window", "sliding-window", "sliding-log", "token-bucket",
            "leaky-bucket", "gcra", "warm-up", "concurrency");

    private ScheduledExecutorService timer;

    @Override
    public void init() throws ServletException {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "demo-concurrency");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String algorithm = request.getPathInfo() == null ? "" : request.getPathInfo().substring(1);
        if (!ALGORITHMS.contains(algorithm)) {
            response.sendError(404, "one of " + ALGORITHMS);
            return;
        }
        if (algorithm.equals("concurrency")) {
            AsyncContext async = request.startAsync();
            timer.schedule(() -> {
                try {
                    write((HttpServletResponse) async.getResponse(), algorithm);
                } catch (IOException clientGone) {
                    // the client went away: nothing to answer
                } finally {
                    async.complete();
                }
            }, 1, TimeUnit.SECONDS);
            return;
        }
        write(response, algorithm);
    }

    private static void write(HttpServletResponse response, String algorithm) throws IOException {
        response.setContentType("text/plain;charset=utf-8");
        response.getWriter().write("ok: " + algorithm + "\n");
    }

    @Override
    public void destroy() {
        timer.shutdownNow();
    }
}
