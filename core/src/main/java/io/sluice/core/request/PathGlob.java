package io.sluice.core.request;

import java.util.Arrays;

/**
 * A compiled path glob ({@link RequestMatcher#glob}), matched in time linear in the path's length for each part of
 * the pattern: a table of the path positions each prefix of the pattern can reach, with no backtracking. A regular
 * expression would backtrack: {@code /**}{@code /**}{@code /x} against a long client path took seconds, and it is
 * matched on every request before any limit applies.
 */
public final class PathGlob {

    /** The most characters a glob may have: {@value}. */
    public static final int MAX_LENGTH = 1_000;

    private static final byte LITERAL = 0;
    /** {@code *}: any characters but '/'. */
    private static final byte STAR = 1;
    /** {@code **} inside a segment: any characters. */
    private static final byte ANY = 2;
    /** {@code /**} as a whole segment: nothing, or '/' and any characters ({@code /a/**} matches {@code /a} too). */
    private static final byte SLASH_ANY = 3;

    private final String glob;
    private final byte[] kinds;
    private final char[] literals;

    private PathGlob(String glob, byte[] kinds, char[] literals) {
        this.glob = glob;
        this.kinds = kinds;
        this.literals = literals;
    }

    /**
     * @param glob {@code **} any characters ({@code /a/**} also matches {@code /a}, and {@code /a/**}{@code /b} also
     *     {@code /a/b}), {@code *} within one segment, anything else itself; trailing slashes dropped
     * @throws IllegalArgumentException when longer than {@value #MAX_LENGTH} characters
     */
    static PathGlob compile(String glob) {
        if (glob.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("a path pattern of at most " + MAX_LENGTH + " characters");
        }
        String g = glob;
        while (g.length() > 1 && g.endsWith("/")) {
            g = g.substring(0, g.length() - 1);
        }
        byte[] kinds = new byte[g.length()];
        char[] literals = new char[g.length()];
        int n = 0;
        for (int i = 0; i < g.length(); i++) {
            char c = g.charAt(i);
            if (c == '*' && i + 1 < g.length() && g.charAt(i + 1) == '*') {
                boolean afterSlash = i > 0 && g.charAt(i - 1) == '/';
                if (afterSlash && (i + 2 == g.length() || g.charAt(i + 2) == '/')) {
                    n--;                                 // the '/' before it becomes part of "nothing, or / and any"
                    if (n > 0 && kinds[n - 1] == SLASH_ANY) {
                        n--;                             // "/**/**" is "/**"
                    }
                    kinds[n++] = SLASH_ANY;
                } else if (n == 0 || kinds[n - 1] != ANY) {
                    kinds[n++] = ANY;
                }
                i++;
            } else if (c == '*') {
                if (n == 0 || kinds[n - 1] != STAR) {
                    kinds[n++] = STAR;
                }
            } else {
                kinds[n] = LITERAL;
                literals[n++] = c;
            }
        }
        return new PathGlob(glob, Arrays.copyOf(kinds, n), Arrays.copyOf(literals, n));
    }

    /** @return whether the whole of {@code path} matches */
    public boolean matches(String path) {
        int len = path.length();
        boolean[] reach = new boolean[len + 1];         // reach[j]: the pattern so far can match path[0, j)
        boolean[] next = new boolean[len + 1];
        reach[0] = true;
        for (int t = 0; t < kinds.length; t++) {
            Arrays.fill(next, false);
            if (!step(t, path, reach, next)) {
                return false;
            }
            boolean[] swap = reach;
            reach = next;
            next = swap;
        }
        return reach[len];
    }

    /**
     * Extends the pattern by its part {@code t}: sets {@code next[j]} where the pattern through {@code t} can match
     * {@code path[0, j)}, from {@code reach}, where the pattern before {@code t} can ({@code next} all false before).
     *
     * @return whether any position is reached: if none, nothing further can match
     */
    private boolean step(int t, String path, boolean[] reach, boolean[] next) {
        return switch (kinds[t]) {
            case LITERAL -> literal(literals[t], path, reach, next);
            case STAR -> withinSegment(path, reach, next);
            case ANY -> anyCharacters(reach, next);
            default -> slashAny(path, reach, next);       // SLASH_ANY
        };
    }

    /** A literal {@code c}: one past each reached position that holds {@code c}. */
    private static boolean literal(char c, String path, boolean[] reach, boolean[] next) {
        int len = path.length();
        boolean any = false;
        for (int j = 0; j < len; j++) {
            if (reach[j] && path.charAt(j) == c) {
                next[j + 1] = true;
                any = true;
            }
        }
        return any;
    }

    /** {@code *}: each reached position, and any number of characters but '/' after it. */
    private static boolean withinSegment(String path, boolean[] reach, boolean[] next) {
        int len = path.length();
        boolean any = false;
        for (int j = 0; j <= len; j++) {
            next[j] = reach[j] || (j > 0 && next[j - 1] && path.charAt(j - 1) != '/');
            any |= next[j];
        }
        return any;
    }

    /** {@code **} inside a segment: each reached position, and every position after it. */
    private static boolean anyCharacters(boolean[] reach, boolean[] next) {
        boolean any = false;
        for (int j = 0; j < next.length; j++) {
            next[j] = reach[j] || (j > 0 && next[j - 1]);
            any |= next[j];
        }
        return any;
    }

    /** {@code /**} as a whole segment: each reached position, and every position after a '/' at a reached one. */
    private static boolean slashAny(String path, boolean[] reach, boolean[] next) {
        int len = path.length();
        boolean any = false;
        boolean slashSeen = false;           // some i < j with reach[i] and path[i] == '/'
        for (int j = 0; j <= len; j++) {
            next[j] = reach[j] || slashSeen;
            if (j < len && reach[j] && path.charAt(j) == '/') {
                slashSeen = true;
            }
            any |= next[j];
        }
        return any;
    }

    @Override
    public String toString() {
        return glob;
    }
}
