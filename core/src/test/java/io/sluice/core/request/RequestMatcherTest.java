package io.sluice.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestMatcherTest {

    private static boolean matches(String pattern, String path) {
        return RequestMatcher.of(List.of(pattern), Set.of()).matches(RequestView.builder("GET", path).build());
    }

    @ParameterizedTest(name = "{0} ~ {1}: {2}")
    @CsvSource({
            "/api/hello, /api/hello, true",
            "/api/hello, /api/hello/, true",        // JAX-RS routes it to the same method: no way around the rule
            "/api/hello, /api/hello//, true",
            "/api/hello/, /api/hello, true",
            "/api/hello, /api/hello/x, false",
            "/api/hello, /api/hellox, false",
            "/users/*, /users/7/, true",
            "/users/*, /users/7/orders, false",
            "/api/**, /api, true",
            "/api/**, /api/, true",
            "/api/**, /api/a/b/, true",
            "/api/**, /apix, false",
            "/a/**/b, /a/b, true",
            "/a/**/b, /a/x/y/b, true",
            "/a/**/b, /a/xb, false",
            "/users/*, /users/, false",             // the path /users: no segment where the pattern needs one
            "/users/*, /users, false",
            "/, /, true",
            "/, /a, false",
    })
    void trailingSlashesDoNotCount(String pattern, String path, boolean expected) {
        assertThat(matches(pattern, path)).isEqualTo(expected);
    }
}
