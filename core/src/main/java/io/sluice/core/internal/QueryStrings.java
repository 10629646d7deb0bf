package io.sluice.core.internal;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * One parameter of a raw query string, for the {@code query:NAME} key, read without the container's
 * {@code getParameter} (which would consume a form body the application has yet to read).
 *
 * <p>The work per request is bounded: only parameters that start within the first {@value #MAX_SCANNED} characters
 * are looked at (the one that straddles the bound is read to its end). A longer query without the parameter there
 * answers {@link #TOO_LONG} rather than "no such parameter", so padding a query can never make a rule skip a request:
 * such requests count under that marker, as do malformed values ({@link #MALFORMED}), joined with the client's address
 * for the keys parsed from configuration ({@code KeyResolvers.perClientFailures}).
 */
public final class QueryStrings {

    /** Characters of a query string within which a parameter must start to be found: {@value}. */
    public static final int MAX_SCANNED = 8192;

    /** The value of a parameter not found within the first {@value #MAX_SCANNED} characters of a longer query. */
    @SuppressWarnings("StringOperationCanBeSimplified")
    public static final String TOO_LONG = new String("#query-too-long");     // an instance of its own: see below

    /**
     * The value of a parameter whose percent-encoding is malformed: one marker for all of them (not the text as sent,
     * which a client could vary for a fresh key each time), as a container may skip such a pair and give the
     * application a later, valid value of the same name.
     */
    @SuppressWarnings("StringOperationCanBeSimplified")
    public static final String MALFORMED = new String("#query-malformed");
    // Each constant is a String instance of its own, not the interned literal: the query key tells them from the same
    // text sent by a client (or returned by another RequestView) by identity, and hashes the latter like any "#..."

    private QueryStrings() {}

    /** @return whether {@code value} is one of this class's own constants ({@link #TOO_LONG}, {@link #MALFORMED}) */
    public static boolean unreadable(String value) {
        return value == TOO_LONG || value == MALFORMED;      // by identity: see above
    }

    /**
     * @param rawQuery the query string as sent (percent-encoded), or null
     * @return the first value of {@code name}, percent-decoded ({@link #MALFORMED} when its encoding is malformed);
     *     {@code ""} for a parameter without {@code =}; null when the query has no such parameter; {@link #TOO_LONG}
     *     (see above)
     */
    public static String parameter(String rawQuery, String name) {
        if (rawQuery == null) {
            return null;
        }
        int length = rawQuery.length();
        int longest = name.length() * 12;       // a name's encoded form: at most 4 UTF-8 bytes per char, each as %XX
        int start = 0;
        while (start < length && start < MAX_SCANNED) {
            int end = start;
            int eq = -1;
            for (char c; end < length && (c = rawQuery.charAt(end)) != '&'; end++) {
                if (c == '=' && eq < 0) {
                    eq = end;
                }
            }
            int nameEnd = eq >= 0 ? eq : end;
            if (nameEnd - start <= longest && name.equals(decode(rawQuery.substring(start, nameEnd)))) {
                String value = eq < 0 ? "" : decode(rawQuery.substring(eq + 1, end));
                return value != null ? value : MALFORMED;
            }
            start = end + 1;
        }
        return start < length ? TOO_LONG : null;
    }

    /** @return {@code s} percent-decoded ({@code +} as a space), or null when its encoding is malformed */
    private static String decode(String s) {
        if (s.indexOf('%') < 0 && s.indexOf('+') < 0) {
            return s;
        }
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
