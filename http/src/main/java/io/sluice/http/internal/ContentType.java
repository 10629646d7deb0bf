package io.sluice.http.internal;

import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.util.Locale;

/**
 * A request's {@code Content-Type}, read the way RFC 9110 (section 8.3.1) writes it: {@code type "/" subtype} and
 * {@code *( OWS ";" OWS [ name "=" ( token / quoted-string ) ] )}, names and the type case-insensitive. What Sluice
 * reads itself (the admin endpoint's rules document, enqueue mode's jobs) is read with this, never with the container's
 * {@code getContentType()}, which Jetty 12 answers by throwing for a charset it does not know.
 *
 * <p>Tolerant of what is harmless: empty parameters ({@code application/yaml;;}, as the grammar allows), whitespace
 * around {@code =}, a parameter that is not {@code name=value} (skipped, as the WHATWG MIME Sniffing standard skips
 * it). Refused, with {@link Unsupported}: no media type ({@code ;}, {@code application/}, {@code a b}), text after it
 * that is not a parameter ({@code text/html, text/plain}), a charset the JVM does not know or whose name is illegal
 * (the answer is 415 rather than a guess at the default: a body read in the wrong charset is silently corrupted), and
 * two {@code charset} parameters (which one a reader takes is anyone's guess). The work is one pass over the header,
 * and nothing of it is kept or quoted unbounded: a refusal quotes at most {@value #QUOTED} characters, escaped.
 *
 * @param mediaType {@code type/subtype}, in lower case
 * @param charset the {@code charset} parameter's charset; null when there is none
 */
public record ContentType(String mediaType, Charset charset) {

    /** The most characters a refusal quotes of what was sent, escapes included: {@value}. */
    static final int QUOTED = 40;
    /** The longest charset name looked up: {@value} characters (IANA's registry allows 40). */
    private static final int MAX_CHARSET_NAME = 64;

    /**
     * @param header the {@code Content-Type} header as sent; null or blank when there is none
     * @return it read; null when there is none
     * @throws Unsupported for a header without a media type, or with a charset that is unknown, illegal or given twice
     */
    public static ContentType parse(String header) throws Unsupported {
        if (header == null || header.isBlank()) {
            return null;
        }
        Reader in = new Reader(header);
        in.whitespace();
        String type = in.token();
        if (type.isEmpty() || !in.next('/')) {
            throw new Unsupported("expected a media type (type/subtype), got " + quote(header));
        }
        String subtype = in.token();
        if (subtype.isEmpty()) {
            throw new Unsupported("expected a media type (type/subtype), got " + quote(header));
        }
        String charset = null;
        in.whitespace();
        while (!in.atEnd()) {
            if (!in.next(';')) {
                throw new Unsupported("expected parameters after the media type, each after a \";\", got "
                        + quote(header));
            }
            in.whitespace();
            String name = in.token();
            in.whitespace();
            int start = in.at;
            String value = in.next('=') ? in.whitespace().value() : null;
            boolean whole = in.whitespace().atEnd() || in.peek(';');
            in.skipToParameterEnd();
            if (value != null && name.equalsIgnoreCase("charset")) {
                if (charset != null) {
                    throw new Unsupported("expected at most one charset parameter, got " + quote(header));
                }
                charset = whole ? value : header.substring(start + 1, in.at);    // junk after it: refused whole
            }
        }
        return new ContentType((type + "/" + subtype).toLowerCase(Locale.ROOT),
                charset == null ? null : charset(charset));
    }

    private static Charset charset(String name) throws Unsupported {
        try {
            if (name.length() <= MAX_CHARSET_NAME && Charset.isSupported(name)) {
                return Charset.forName(name);
            }
        } catch (IllegalCharsetNameException illegal) {
            // an illegal name is refused as an unknown one is
        }
        throw new Unsupported("unsupported charset " + quote(name) + " in Content-Type; expected one such as UTF-8");
    }

    /**
     * @return {@code text} in quotes, anything outside printable ASCII and the quote and backslash escaped as
     *     {@code \}{@code uXXXX}, cut (at a whole character or escape) to at most {@value #QUOTED} characters between
     *     the quotes, then its length: safe in a log line and in any answer
     */
    static String quote(String text) {
        StringBuilder out = new StringBuilder(QUOTED + 32).append('"');
        int i = 0;
        for (; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean escape = c < 0x20 || c > 0x7e || c == '"' || c == '\\';
            if (out.length() - 1 + (escape ? 6 : 1) > QUOTED) {
                break;
            }
            out.append(escape ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        out.append('"');
        return i < text.length() ? out.append("... (").append(text.length()).append(" characters)").toString()
                : out.toString();
    }

    /** A {@code Content-Type} that is refused; its message is short and quotes the header safely. */
    public static final class Unsupported extends Exception {
        private static final long serialVersionUID = 1L;

        Unsupported(String message) {
            super(message, null, false, false);       // a refusal of a request: no stack trace to fill
        }
    }

    /** One pass over the header. */
    private static final class Reader {
        private final String s;
        private int at;

        Reader(String s) {
            this.s = s;
        }

        boolean atEnd() {
            return at == s.length();
        }

        /** Skips optional whitespace (RFC 9110's OWS: spaces and tabs). */
        Reader whitespace() {
            while (at < s.length() && (s.charAt(at) == ' ' || s.charAt(at) == '\t')) {
                at++;
            }
            return this;
        }

        /** @return whether the next character is {@code c} */
        boolean peek(char c) {
            return at < s.length() && s.charAt(at) == c;
        }

        /** @return whether the next character is {@code c}, consumed if so */
        boolean next(char c) {
            if (at < s.length() && s.charAt(at) == c) {
                at++;
                return true;
            }
            return false;
        }

        /** @return the token here, possibly empty */
        String token() {
            int start = at;
            while (at < s.length() && tchar(s.charAt(at))) {
                at++;
            }
            return s.substring(start, at);
        }

        /** @return a parameter's value here: a quoted string unquoted, or a token (possibly empty) */
        String value() {
            if (!next('"')) {
                return token();
            }
            StringBuilder v = new StringBuilder();
            while (at < s.length() && s.charAt(at) != '"') {
                char c = s.charAt(at++);
                if (c == '\\' && at < s.length()) {
                    c = s.charAt(at++);                           // a quoted-pair
                }
                v.append(c);
            }
            next('"');
            return v.toString();
        }

        /** Skips what is left of a parameter: up to the next {@code ;} outside a quoted string, or the end. */
        void skipToParameterEnd() {
            boolean quoted = false;
            while (at < s.length()) {
                char c = s.charAt(at);
                if (c == ';' && !quoted) {
                    return;
                }
                if (c == '"') {
                    quoted = !quoted;
                } else if (c == '\\' && quoted) {
                    at++;
                }
                at++;
            }
            at = s.length();
        }

        /** RFC 9110's tchar. */
        private static boolean tchar(char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
        }
    }
}
