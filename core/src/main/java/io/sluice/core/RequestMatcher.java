package io.sluice.core;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
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
        List<Pattern> patterns = pathPatterns.stream().map(RequestMatcher::glob).toList();
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
            for (Pattern p : patterns) {
                if (p.matcher(path).matches()) {
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
     * matched against have none ({@link #normalized}).
     */
    static Pattern glob(String glob) {
        while (glob.length() > 1 && glob.endsWith("/")) {
            glob = glob.substring(0, glob.length() - 1);
        }
        StringBuilder regex = new StringBuilder();
        int beforeSlash = -1;       // the regex's length before the last '/' of the glob appended so far
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*' && i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                boolean afterSlash = i > 0 && glob.charAt(i - 1) == '/';
                if (afterSlash && (i + 2 == glob.length() || glob.charAt(i + 2) == '/')) {
                    regex.setLength(beforeSlash);
                    regex.append("(/.*)?");         // "/api/**" also matches "/api"; "/a/**/b" also "/a/b"
                } else {
                    regex.append(".*");
                }
                i++;
            } else if (c == '*') {
                regex.append("[^/]*");
            } else {
                if (c == '/') {
                    beforeSlash = regex.length();
                }
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString());
    }
}
