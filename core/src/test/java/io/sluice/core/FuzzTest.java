package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.key.Cidr;
import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.key.KeyResolvers;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;

/**
 * Hostile input, 100,000 cases each: the parsers of configuration either succeed or fail with a
 * {@link ConfigException} (which the front doors turn into a start-up message, never a 500), and the parsers of
 * request data never throw and never produce an unbounded key.
 */
class FuzzTest {

    private static final ClientIpResolver BEHIND_PROXY = ClientIpResolver.trusting(
            List.of(Cidr.parse("trusted-proxies", "10.0.0.0/8")), ClientIpResolver.Header.X_FORWARDED_FOR);
    private static final ClientIpResolver BEHIND_FORWARDED = ClientIpResolver.trusting(
            List.of(Cidr.parse("trusted-proxies", "10.0.0.0/8")), ClientIpResolver.Header.FORWARDED);
    private static final KeyResolver KEY = KeyResolvers.parse("header:X-Api-Key+ip+query:tenant", BEHIND_PROXY);

    @Property(tries = 100_000, generation = GenerationMode.RANDOMIZED, shrinking = ShrinkingMode.BOUNDED)
    void theLimitNotationParsesOrFailsWithAConfigException(@ForAll("notations") String notation) {
        try {
            Policy p = PolicyParser.parse("limit", notation, null);
            assertThat(Policy.parse(p.toString())).as("formats back to itself").isEqualTo(p);
        } catch (ConfigException e) {
            assertThat(e.getMessage()).startsWith("limit: ");
        }
    }

    @Property(tries = 100_000, generation = GenerationMode.RANDOMIZED, shrinking = ShrinkingMode.BOUNDED)
    void forwardingHeadersNeverThrowAndKeysStayBounded(@ForAll("headerValues") String value) {
        RequestView request = RequestView.builder("GET", "/api?tenant=" + value)
                .remoteAddress("10.1.2.3")
                .header("X-Forwarded-For", value)
                .header("Forwarded", value)
                .header("X-Api-Key", value)
                .build();
        assertThatCode(() -> {
            assertThat(BEHIND_PROXY.resolve(request)).isNotNull();
            assertThat(BEHIND_FORWARDED.resolve(request)).isNotNull();
            String key = KEY.resolve(request);
            if (key != null) {
                assertThat(key.length()).as("key of %d chars from a %d-char value", key.length(), value.length())
                        .isLessThanOrEqualTo(3 * 66 + 2);
            }
        }).doesNotThrowAnyException();
    }

    @Provide
    Arbitrary<String> notations() {
        Arbitrary<String> tokens = Arbitraries.of("100", "/", "1m", "10/s", "5/10s", "burst", "20", "min-interval",
                "2s", "concurrent", "warm-up", "30s", "max-wait", "delay", "lease", "staggered", "count-rejected",
                "cold-factor", "0", "-1", "99999999999", "ms", "d", "h", " ", "\t", "1.5", "x", "/0s", "1e9", "\u0000");
        return Arbitraries.oneOf(
                tokens.list().ofMaxSize(8).map(l -> String.join(" ", l)),
                tokens.list().ofMaxSize(8).map(l -> String.join("", l)),
                Arbitraries.strings().ofMaxLength(40),
                Arbitraries.strings().withChars("0123456789/smhd burstconcurent-.").ofMaxLength(30));
    }

    @Provide
    Arbitrary<String> headerValues() {
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(300),
                Arbitraries.strings().withChars("\"\\,;=[]:for1.0_ \t\r\nabcdef%\u0000\u00ff\ud800").ofMaxLength(200),
                Arbitraries.of("1.2.3.4", "10.0.0.1", "::1", "[2001:db8::1]:443", "unknown", "_hidden", "for=", ",", "")
                        .list().ofMaxSize(30).map(l -> String.join(", ", l)),
                Arbitraries.strings().ofMinLength(5_000).ofMaxLength(20_000));
    }
}
