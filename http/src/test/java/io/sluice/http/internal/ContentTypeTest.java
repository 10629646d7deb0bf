package io.sluice.http.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import org.junit.jupiter.api.Test;

/**
 * Content types as clients send them, and as hostile ones do (20,000 generated): read as RFC 9110 writes them, or
 * refused briefly.
 */
class ContentTypeTest {

    @Test
    void noHeaderIsNone() throws Exception {
        assertThat(ContentType.parse(null)).isNull();
        assertThat(ContentType.parse(" \t")).isNull();
    }

    @Test
    void theTypeAndParameterNamesAreCaseInsensitiveAndValuesMayBeQuoted() throws Exception {
        assertThat(ContentType.parse("application/json")).isEqualTo(new ContentType("application/json", null));
        assertThat(ContentType.parse(" Application/YAML ; Charset=\"UTF-8\" "))
                .isEqualTo(new ContentType("application/yaml", StandardCharsets.UTF_8));
        assertThat(ContentType.parse("text/plain;format=flowed;charset=utf8").charset())
                .as("any of the charset's names").isEqualTo(StandardCharsets.UTF_8);
        assertThat(ContentType.parse("text/plain; charset=ISO-8859-1").charset()).isEqualTo(StandardCharsets.ISO_8859_1);
        assertThat(ContentType.parse("text/plain; charset = \"utf-8\"").charset()).as("whitespace around =")
                .isEqualTo(StandardCharsets.UTF_8);
    }

    @Test
    void emptyParametersAreAllowedAsRfc9110sGrammarAllowsThem() throws Exception {
        assertThat(ContentType.parse("application/yaml;;;;")).isEqualTo(new ContentType("application/yaml", null));
        assertThat(ContentType.parse("application/yaml; ;charset=utf-8;")).isEqualTo(
                new ContentType("application/yaml", StandardCharsets.UTF_8));
    }

    @Test
    void aParameterThatIsNotNameEqualsValueIsSkippedAndAQuotedSemicolonEndsNothing() throws Exception {
        assertThat(ContentType.parse("application/yaml; junk; =x; x=\"a;b\\\";c\"; charset=utf-8"))
                .isEqualTo(new ContentType("application/yaml", StandardCharsets.UTF_8));
        assertThat(ContentType.parse("application/yaml; charset")).isEqualTo(new ContentType("application/yaml", null));
        assertThat(ContentType.parse("multipart/form-data; boundary=\"unterminated")).isEqualTo(
                new ContentType("multipart/form-data", null));
    }

    @Test
    void aHeaderWithoutAMediaTypeIsRefused() {
        for (String header : new String[] {";", "application/", "/json", "application", "application json",
                "text/html, text/plain", "application/json garbage", "\u00e9/json", "a/b/c"}) {
            assertThatThrownBy(() -> ContentType.parse(header)).as(header)
                    .isInstanceOf(ContentType.Unsupported.class).hasMessageStartingWith("expected ");
        }
    }

    @Test
    void anUnknownOrIllegalCharsetIsRefusedNamingIt() {
        assertThatThrownBy(() -> ContentType.parse("application/json; charset=bogus-9"))
                .isInstanceOf(ContentType.Unsupported.class)
                .hasMessage("unsupported charset \"bogus-9\" in Content-Type; expected one such as UTF-8");
        for (String header : new String[] {"application/json; charset=", "application/json; charset=\"\"",
                "application/json; charset=utf-8 junk", "application/json; charset=\"utf-8\"x",
                "application/json; charset=utf-8,latin1", "application/json; charset=\u00e9"}) {
            assertThatThrownBy(() -> ContentType.parse(header)).as(header)
                    .isInstanceOf(ContentType.Unsupported.class).hasMessageStartingWith("unsupported charset ");
        }
    }

    @Test
    void twoCharsetsAreRefused() {
        assertThatThrownBy(() -> ContentType.parse("application/yaml; charset=utf-8; CHARSET=iso-8859-1"))
                .isInstanceOf(ContentType.Unsupported.class)
                .hasMessageStartingWith("expected at most one charset parameter, got \"application/yaml; ");
    }

    @Test
    void aRefusalQuotesTheHeaderBoundedAndEscaped() {
        assertThatThrownBy(() -> ContentType.parse("application/json; charset=" + "x".repeat(5_000)))
                .hasMessage("unsupported charset \"" + "x".repeat(40) + "\"... (5000 characters) in Content-Type;"
                        + " expected one such as UTF-8");
        assertThatThrownBy(() -> ContentType.parse("application/json; charset=\"a\r\nFORGED\u001b[2J\\\\\""))
                .hasMessage("unsupported charset \"a\\u000d\\u000aFORGED\\u001b[2J\\u005c\" in Content-Type;"
                        + " expected one such as UTF-8");
    }

    @Property(tries = 20_000, generation = GenerationMode.RANDOMIZED, shrinking = ShrinkingMode.BOUNDED)
    void anyHeaderIsReadOrRefusedBriefly(@ForAll("headers") String header) {
        try {
            ContentType type = ContentType.parse(header);
            if (type != null) {
                assertThat(type.mediaType()).matches("[a-z0-9!#$%&'*+.^_`|~-]+/[a-z0-9!#$%&'*+.^_`|~-]+");
            }
        } catch (ContentType.Unsupported e) {
            assertThat(e.getMessage()).hasSizeLessThan(200).matches("[ -~]+");
        }
    }

    @Provide
    Arbitrary<String> headers() {
        Arbitrary<String> names = Arbitraries.of("utf-8", "UTF8", "\"utf-8\"", "bogus-9", "", "\"", "\"\\\"",
                "x".repeat(5_000), "utf-8;", "iso-8859-1", "\u00e9", "..", "a:b", "\"a;b\"", "utf-8 x");
        Arbitrary<String> parameters = Arbitraries.oneOf(names.map(n -> "charset=" + n), names.map(n -> "CharSet =" + n),
                Arbitraries.of("", " ", "charset", "=", "=x", "x=\"", "q=\"a\\\"b\"", "boundary=--x", ";"),
                Arbitraries.strings().withCharRange(' ', '~').withChars('\t', '\u00e9', '\u00ff').ofMaxLength(30));
        Arbitrary<String> types = Arbitraries.of("application/json", "Application/YAML", "text/yaml", "", "/", ";",
                "a/b/c", " text/plain ", "application/", "*/*", "\u00e9/x");
        return Arbitraries.oneOf(
                types.flatMap(t -> parameters.list().ofMaxSize(6).map(p -> t + (p.isEmpty() ? "" : ";")
                        + String.join(";", p))),
                Arbitraries.strings().ofMaxLength(80));
    }
}
