package io.sluice.core.request;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which requests a rule applies to. {@link #of} matches path patterns ({@code /api/**} any depth, {@code /users/*}
 * one segment, {@code /login} exactly) and HTTP methods. Trailing slashes do not count, on either side: a path is
 * matched {@linkplain #normalized(String) without them}, so {@code /login} matches {@code /login/} too, as JAX-RS
 * runtimes route both to the same resource method (a rule that a trailing slash could step around would be no limit).
 */
@FunctionalInterface
public interface RequestMatcher {

    /** Matches every request. */
    RequestMatcher ALL = request -> true;

    boolean matches(RequestView request);

    /**
     * @param pathPatterns glob patterns; empty matches every path
     * @param methods HTTP methods, any case; empty matches every method
     */
    static RequestMatcher of(List<String> pathPatterns, Set<String> methods) {
        List<PathGlob> patterns = pathPatterns.stream().map(RequestMatcher::glob).toList();
        Set<String> upper = methods.stream().map(m -> m.toUpperCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
        if (patterns.isEmpty() && upper.isEmpty()) {
            return ALL;
        }
        return request -> {
            if (!upper.isEmpty() && !upper.contains(request.method())) {
                return false;
            }
            if (patterns.isEmpty()) {
                return true;
            }
            String path = normalized(request.path());
            for (PathGlob p : patterns) {
                if (p.matches(path)) {
                    return true;
                }
            }
            return false;
        };
    }

    /** @return {@code path} without trailing slashes ({@code /} stays {@code /}): the form patterns are matched against */
    static String normalized(String path) {
        if (path == null) {
            return null;
        }
        int end = path.length();
        while (end > 1 && path.charAt(end - 1) == '/') {
            end--;
        }
        return end == path.length() ? path : path.substring(0, end);
    }

    /**
     * Compiles a path glob: {@code **} any characters ({@code /a/**} also matches {@code /a}, and {@code /a/**}{@code /b}
     * also {@code /a/b}), {@code *} within one segment; the pattern's trailing slashes are dropped, as the paths it is
     * matched against have none ({@link #normalized}). Matched without backtracking ({@link PathGlob}).
     *
     * @throws IllegalArgumentException when longer than {@value PathGlob#MAX_LENGTH} characters
     */
    static PathGlob glob(String glob) {
        return PathGlob.compile(glob);
    }
}
