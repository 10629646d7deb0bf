package io.sluice.demo;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Set;

/**
 * {@code GET /api/algorithms/{name}}: one endpoint per algorithm, each limited by its own rule in
 * {@code WEB-INF/sluice-rules.yaml}. Answers 200 {@code text/plain} naming the algorithm, or 404 for an unknown name.
 *
 * <p>{@code /api/algorithms/concurrency} works for {@value #CONCURRENCY_WORK_MILLIS} ms before answering, so that
 * requests overlap and the in-flight limit is visible. It is the only endpoint that takes its time.
 */
public class AlgorithmServlet extends HttpServlet {

    /** How long the concurrency endpoint works on one request: {@value} ms. */
    static final long CONCURRENCY_WORK_MILLIS = 1000;

    static final Set<String> ALGORITHMS = Set.of("fixed-window", "sliding-window", "sliding-log", "token-bucket",
            "leaky-bucket", "gcra", "warm-up", "concurrency");

    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String name = request.getPathInfo() == null ? "" : request.getPathInfo().substring(1);
        if (!ALGORITHMS.contains(name)) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND, "no such algorithm; try one of " + ALGORITHMS);
            return;
        }
        if (name.equals("concurrency")) {
            work();
        }
        response.setContentType("text/plain;charset=UTF-8");
        response.setHeader("Cache-Control", "no-store");
        response.getWriter().write(name + ": allowed\n");
    }

    /** Stands for a slow backend call: holds the request (and its concurrency lease) for a while. */
    private static void work() {
        try {
            Thread.sleep(CONCURRENCY_WORK_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();   // the container is stopping: answer at once
        }
    }
}
