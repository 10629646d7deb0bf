package io.sluice.demo;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** {@code GET /api/hello}: 200 text/plain "hello" (limited by the rule "hello": 5 per 10 s per client IP). */
public class HelloServlet extends HttpServlet {

    private static final byte[] HELLO = "hello\n".getBytes(StandardCharsets.US_ASCII);

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain;charset=utf-8");
        response.setContentLength(HELLO.length);
        response.getOutputStream().write(HELLO);
    }
}
