package io.sluice.http;

import java.util.List;

/**
 * What a front door does with a request after the engine decided: headers always; when denied, a status and body
 * instead of the application.
 *
 * @param proceed whether the request goes on to the application (the headers are added to its response)
 * @param status when denied: 429, or 503 when the store is unavailable or the front door is stopping; 0 when the
 *     request proceeds
 * @param headers response headers in order; a name may repeat
 * @param contentType the body's media type, or null when there is no body
 * @param body the body (UTF-8), or null
 */
public record Reply(boolean proceed, int status, List<Header> headers, String contentType, String body) {

    public Reply {
        headers = List.copyOf(headers);
    }

    /** @return the first value of header {@code name} (case-insensitive), or null */
    public String header(String name) {
        for (Header h : headers) {
            if (h.name().equalsIgnoreCase(name)) {
                return h.value();
            }
        }
        return null;
    }

    /**
     * One response header.
     *
     * @param name the field name
     * @param value the field value
     * @param onlyIfAbsent a configured {@code deny-headers} field: a front door leaves it out when the response already
     *     has a field of that name (set by an application's CORS filter, say), so a browser never sees two
     *     {@code Access-Control-Allow-Origin} values
     */
    public record Header(String name, String value, boolean onlyIfAbsent) {

        /** A header Sluice sets itself. */
        public Header(String name, String value) {
            this(name, value, false);
        }
    }
}
