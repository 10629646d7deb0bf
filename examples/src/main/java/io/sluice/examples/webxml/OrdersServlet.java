package io.sluice.examples.webxml;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * An ordinary application servlet that knows nothing about rate limiting: {@code src/main/webapps/web-xml/WEB-INF/
 * web.xml} puts {@code RateLimitFilter} in front of it with a few init parameters.
 */
public class OrdersServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("application/json");
        response.getWriter().write("{\"orders\":[]}");
    }
}
