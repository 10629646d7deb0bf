package io.sluice.core;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Which requests a rule applies to. {@link #of} matches path patterns ({@code /api/**} any depth, {@code /users/*}
 * one segment, {@code /login} exactly) and HTTP methods.
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
        return request -> (upper.isEmpty() || upper.contains(request.method()))
                && (patterns.isEmpty() || patterns.stream().anyMatch(p -> p.matcher(request.path()).matches()));
    }

    /** Compiles a path glob: {@code **} any characters, {@code *} within one segment. */
    static Pattern glob(String glob) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*' && i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                // "/api/**" also matches "/api" itself
                if (regex.length() > 0 && regex.charAt(regex.length() - 1) == '/' && i + 2 == glob.length()) {
                    regex.setLength(regex.length() - 1);
                    regex.append("(/.*)?");
                } else {
                    regex.append(".*");
                }
                i++;
            } else if (c == '*') {
                regex.append("[^/]*");
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString());
    }
}
