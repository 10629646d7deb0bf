package io.sluice.demo;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * {@code GET /api/hello}: 200 {@code text/plain} "Hello from Sluice!". The rate limit (5 requests per 10 s per client
 * IP, fixed window) is not here: the filter applies it from {@code WEB-INF/sluice-rules.yaml}, and a denied request
 * never reaches this servlet.
 */
public class HelloServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain;charset=UTF-8");
        response.setHeader("Cache-Control", "no-store");
        response.getWriter().write("Hello from Sluice!\n");
    }
}
