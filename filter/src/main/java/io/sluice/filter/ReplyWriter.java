package io.sluice.filter;

import io.sluice.http.Reply;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Writes a front door's {@link Reply} onto a servlet response: the filter's 429 and 503 answers. */
final class ReplyWriter {

    private ReplyWriter() {}

    /** Sends a refusal: its headers (a configured one the response already has is left as it is), status and body. */
    static void send(HttpServletResponse response, Reply reply) throws IOException {
        for (Reply.Header h : reply.headers()) {
            if (!h.onlyIfAbsent() || !response.containsHeader(h.name())) {     // an earlier CORS filter's stands
                response.addHeader(h.name(), h.value());
            }
        }
        response.setStatus(reply.status());
        if (reply.body() == null) {
            response.setContentLength(0);
            return;
        }
        byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
        response.setContentType(reply.contentType());
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
