package io.sluice.core.log;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Text from outside in a log line: what a client sent (a header, a query parameter, a key), or the message of an
 * exception, which may quote it ({@code NumberFormatException: For input string: "..."}). Logged raw, a client could
 * forge log lines (CR, LF), drive the terminal of whoever reads the log (ANSI escapes), or fill it (megabytes of text).
 *
 * <p>{@link #safe(String)} escapes control characters and bounds the length; {@link #summary(Throwable)} is an
 * exception's class and its message so made safe, for a line that names an exception; {@link #safe(Throwable)} makes
 * every message of an exception logged with its stack trace safe, keeping its class names, stack frames, causes and
 * suppressed exceptions for diagnosis. Only the text of a line being logged is processed; nothing else pays for it.
 */
public final class LogText {

    /**
     * The most characters a text is logged with: {@value}. A longer one is cut, at a whole character or escape, and
     * ends in {@code ... (N characters)} with its original length.
     */
    public static final int MAX_LENGTH = 500;
    /** How deep causes and suppressed exceptions below a logged one are kept: {@value}. */
    static final int MAX_DEPTH = 16;

    private LogText() {}

    /**
     * @return {@code text} with its control characters escaped, cut to {@value #MAX_LENGTH} characters; {@code "null"}
     *     for null. CR, LF and tab are escaped as {@code \r}, {@code \n} and {@code \t}; the other C0 controls, DEL, the
     *     C1 controls, the Unicode line and paragraph separators, the bidirectional controls and unpaired surrogates as
     *     {@code \}{@code uXXXX}. Other text, backslashes included, is kept as it is.
     */
    public static String safe(String text) {
        if (text == null) {
            return "null";
        }
        int length = text.length();
        int i = 0;
        while (i < length && !escaped(text, i) && i + width(text, i) <= MAX_LENGTH) {
            i += width(text, i);
        }
        if (i == length) {
            return text;                    // short and clean: the text itself
        }
        StringBuilder out = new StringBuilder(Math.min(length, MAX_LENGTH) + 32).append(text, 0, i);
        while (i < length) {
            char c = text.charAt(i);
            int width = width(text, i);
            boolean escape = escaped(text, i);
            if (out.length() + (escape ? (c == '\r' || c == '\n' || c == '\t' ? 2 : 6) : width) > MAX_LENGTH) {
                break;
            }
            if (!escape) {
                out.append(text, i, i + width);
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\t') {
                out.append("\\t");
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
            i += width;
        }
        if (i < length) {
            out.append("... (").append(length).append(" characters)");
        }
        return out.toString();
    }

    /** @return 2 for a surrogate pair at {@code i}, which is kept or cut whole; else 1 */
    private static int width(String text, int i) {
        return Character.isHighSurrogate(text.charAt(i)) && i + 1 < text.length()
                && Character.isLowSurrogate(text.charAt(i + 1)) ? 2 : 1;
    }

    /** @return whether the character at {@code i} is written escaped */
    private static boolean escaped(String text, int i) {
        char c = text.charAt(i);
        if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
            return true;                                    // C0, DEL, C1 (NEL among them)
        }
        if (c < 0x061c) {
            return false;                                   // the common case, at one comparison
        }
        if (c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) {
            return true;                // line and paragraph separators, bidirectional marks, embeddings and isolates
        }
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1));
        }
        return Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(text.charAt(i - 1)));
    }

    /**
     * @return {@code thrown}'s class name and its message made {@link #safe(String) safe}, as {@link Throwable#toString}
     *     would give them; {@code "null"} for null
     */
    public static String summary(Throwable thrown) {
        if (thrown == null) {
            return "null";
        }
        String message = thrown.getLocalizedMessage();
        return thrown.getClass().getName() + (message == null ? "" : ": " + safe(message));
    }

    /**
     * An exception to log with its stack trace on a path a request reaches: it prints as {@code thrown} does (a log
     * formatter prints {@link Throwable#toString} and the stack frames), its class name, stack frames, causes and
     * suppressed exceptions kept, each message made {@link #safe(String) safe}.
     *
     * @return a stand-in for {@code thrown} (whose {@link Throwable#toString} and {@link Throwable#getMessage} are
     *     {@link #summary} of the original); null for null
     */
    public static Throwable safe(Throwable thrown) {
        return thrown == null ? null : new Logged(thrown, Collections.newSetFromMap(new IdentityHashMap<>()), 0);
    }

    /** A logged exception's stand-in: see {@link #safe(Throwable)}. */
    private static final class Logged extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Logged(Throwable original, Set<Throwable> seen, int depth) {
            super(summary(original));
            seen.add(original);
            setStackTrace(original.getStackTrace());
            Throwable cause = original.getCause();
            if (cause != null && depth < MAX_DEPTH && seen.add(cause)) {
                initCause(new Logged(cause, seen, depth + 1));
            }
            for (Throwable s : original.getSuppressed()) {
                if (depth < MAX_DEPTH && seen.add(s)) {
                    addSuppressed(new Logged(s, seen, depth + 1));
                }
            }
        }

        /** The original's frames are set instead: not this constructor's. */
        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }

        /** The original's class and safe message, without this class's name: printed as the original would be. */
        @Override
        public String toString() {
            return getMessage();
        }
    }
}
