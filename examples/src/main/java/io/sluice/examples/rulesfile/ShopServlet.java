package io.sluice.examples.rulesfile;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** The application: answers every request with 200 and the method and path it served. */
public class ShopServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain");
        response.getWriter().write(request.getMethod() + " " + request.getServletPath()
                + (request.getPathInfo() == null ? "" : request.getPathInfo()));
    }
}
