package io.sluice.demo;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * {@code POST /api/jobs}: a job under the rule's rate, processed at once (200). Over the rate the filter never calls
 * this: it answers 202 and puts the job in the queue (rule {@code jobs}, {@code enqueue: demo-jobs}).
 */
public class JobsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        request.getInputStream().readAllBytes();
        response.setContentType("application/json");
        response.setHeader("Cache-Control", "no-store");
        response.getWriter().write("{\"status\":\"DONE\",\"processed\":\"at once\"}");
    }
}
