package io.sluice.filter;

import io.sluice.core.request.RequestView;
import io.sluice.core.internal.QueryStrings;
import io.sluice.http.Responder;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;

/**
 * A servlet request as the engine sees it.
 *
 * <p>The path is the servlet path plus path info: decoded and normalized by the container, so {@code /%6Cogin} and
 * {@code /login;x=1} match a rule on {@code /login}. Query parameters are read from the raw query string, never with
 * {@code getParameter}, which would consume a form body the application has yet to read.
 *
 * <p>Public for the other front doors over servlet requests (the Spring Boot starter's handler interceptor).
 */
public final class ServletRequestView implements RequestView, Responder.HeaderSink {

    private final HttpServletRequest request;
    private final HttpServletResponse response;
    private String remoteAddress;

    /** A view that also adds headers to {@code response} (as the {@link Responder.HeaderSink} of allowed requests). */
    public ServletRequestView(HttpServletRequest request, HttpServletResponse response) {
        this.request = request;
        this.response = response;
    }

    /** @return whether the request may be put in asynchronous mode: the filter queues it then, rather than waiting */
    boolean asyncSupported() {
        return request.isAsyncSupported();
    }

    @Override
    public void add(String name, String value) {
        response.addHeader(name, value);
    }

    @Override
    public String method() {
        return request.getMethod().toUpperCase(Locale.ROOT);
    }

    @Override
    public String path() {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = pathInfo == null ? (servletPath == null ? "" : servletPath)
                : servletPath == null || servletPath.isEmpty() ? pathInfo : servletPath + pathInfo;
        return path.isEmpty() ? "/" : path;
    }

    @Override
    public String header(String name) {
        return request.getHeader(name);
    }

    @Override
    public List<String> headers(String name) {
        Enumeration<String> values = request.getHeaders(name);
        return values == null ? List.of() : Collections.list(values);
    }

    @Override
    public String remoteAddress() {
        String a = remoteAddress;        // containers build this string on every call; the rules and the allowlist share one
        if (a == null) {
            a = request.getRemoteAddr();
            remoteAddress = a;
        }
        return a;
    }

    @Override
    public String principal() {
        Principal p = request.getUserPrincipal();
        return p == null ? null : p.getName();
    }

    @Override
    public boolean isUserInRole(String role) {
        return request.getUserPrincipal() != null && request.isUserInRole(role);
    }

    @Override
    public Object attribute(String name) {
        return request.getAttribute(name);
    }

    @Override
    public String queryParameter(String name) {
        return QueryStrings.parameter(request.getQueryString(), name);
    }
}
