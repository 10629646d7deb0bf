package io.sluice.core.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.internal.QueryStrings;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KeyResolversTest {

    private static final ClientIpResolver DIRECT = ClientIpResolver.direct();

    private static final RequestView REQUEST = RequestView.builder("post", "/api/orders")
            .remoteAddress("203.0.113.9")
            .header("X-Api-Key", "  k-123  ")
            .header("X-Empty", "   ")
            .attribute("tenant", 42)
            .principal("alice")
            .query("client", "c|1")
            .build();

    private static String key(String spec) {
        return KeyResolvers.parse(spec, DIRECT).resolve(REQUEST);
    }

    @Test
    void eachPartResolvesFromItsPlaceInTheRequest() {
        assertThat(key("ip")).isEqualTo("203.0.113.9");
        assertThat(key("header:X-Api-Key")).as("trimmed").isEqualTo("k-123");
        assertThat(key("header:x-api-key")).as("header names ignore case").isEqualTo("k-123");
        assertThat(key("attribute:tenant")).isEqualTo("42");
        assertThat(key("principal")).isEqualTo("alice");
        assertThat(key("query:client")).isEqualTo("c|1");
        assertThat(key("path")).isEqualTo("/api/orders");
        assertThat(KeyResolvers.parse("path", DIRECT).resolve(RequestView.builder("GET", "/api/orders//").build()))
                .as("as routed: a trailing slash is no other key").isEqualTo("/api/orders");
        assertThat(KeyResolvers.parse("path", DIRECT).resolve(RequestView.builder("GET", "/").build())).isEqualTo("/");
    }

    @Test
    void aClientCannotSendOneOfSluicesOwnKeysOrAStoredHash() {
        for (String forged : List.of(io.sluice.core.Rule.FAILED_KEY, io.sluice.core.internal.QueryStrings.TOO_LONG, "#abc")) {
            String key = KeyResolvers.parse("header:X-Api-Key", DIRECT)
                    .resolve(RequestView.builder("GET", "/").header("X-Api-Key", forged).build());
            assertThat(key).startsWith("#").isNotEqualTo(forged).hasSize(23);
        }
        assertThat(KeyResolvers.parse("query:client", DIRECT).resolve(RequestView.builder("GET", "/")
                .query("client", "#query-too-long").build())).as("as sent by a client, not the parser's constant")
                .isNotEqualTo(io.sluice.core.internal.QueryStrings.TOO_LONG);
        assertThat(KeyResolvers.normalized(" a | b ")).as("one value, or the parts of a combination")
                .containsExactlyInAnyOrder("a | b", "a|b");
        assertThat(key("method")).isEqualTo("POST");
        assertThat(key("global")).isEqualTo("global");
    }

    @Test
    void combinationsJoinPartsWithAnEscapedSeparator() {
        assertThat(key("ip+path")).isEqualTo("203.0.113.9|/api/orders");
        assertThat(key(" IP + Method ")).isEqualTo("203.0.113.9|POST");
        assertThat(key("query:client+principal")).as("a '|' inside a value cannot forge another split")
                .isEqualTo("c%7C1|alice");
    }

    @Test
    void aMissingOrBlankPartMakesTheWholeKeyMissing() {
        assertThat(key("header:X-Other")).isNull();
        assertThat(key("header:X-Empty")).isNull();
        assertThat(key("attribute:plan")).isNull();
        assertThat(key("ip+header:X-Other")).isNull();
        assertThat(KeyResolvers.parse("principal", DIRECT).resolve(RequestView.builder("GET", "/").build())).isNull();
    }

    @Test
    void longValuesAreKeptAsAHashNeverRaw() {
        RequestView huge = RequestView.builder("GET", "/").header("X-Api-Key", "k".repeat(10_000)).build();
        RequestView other = RequestView.builder("GET", "/").header("X-Api-Key", "k".repeat(9_999) + "j").build();
        KeyResolver byKey = KeyResolvers.parse("header:X-Api-Key", DIRECT);

        assertThat(byKey.resolve(huge)).startsWith("#").hasSize(23).isNotEqualTo(byKey.resolve(other));
        assertThat(byKey.resolve(huge)).isEqualTo(byKey.resolve(huge));
    }

    @Test
    void ipv6ClientsAreGroupedBySlash64UnlessConfiguredOtherwise() {
        RequestView a = RequestView.builder("GET", "/").remoteAddress("2001:db8:1:2:aaaa::1").build();
        RequestView b = RequestView.builder("GET", "/").remoteAddress("2001:db8:1:2:bbbb::9").build();

        assertThat(KeyResolvers.parse("ip", DIRECT).resolve(a)).isEqualTo("2001:db8:1:2::/64")
                .isEqualTo(KeyResolvers.parse("ip", DIRECT).resolve(b));
        assertThat(KeyResolvers.parse("ip/128", DIRECT).resolve(a)).isEqualTo("2001:db8:1:2:aaaa::1");
        assertThat(KeyResolvers.parse("ip/48", DIRECT).resolve(a)).isEqualTo("2001:db8:1::/48");
        assertThat(KeyResolvers.parse("ip/48", DIRECT).resolve(REQUEST)).as("IPv4 is never grouped").isEqualTo("203.0.113.9");
    }

    @Test
    void ipUsesTheClientIpResolver() {
        ClientIpResolver proxied = ClientIpResolver.trusting(List.of(Cidr.parse("t", "127.0.0.1")),
                ClientIpResolver.Header.X_FORWARDED_FOR);
        RequestView r = RequestView.builder("GET", "/").remoteAddress("127.0.0.1").header("X-Forwarded-For", "198.51.100.7").build();

        assertThat(KeyResolvers.parse("ip", proxied).resolve(r)).isEqualTo("198.51.100.7");
        assertThat(KeyResolvers.parse("ip", DIRECT).resolve(r)).isEqualTo("127.0.0.1");
    }

    @Test
    void theIpKeyIsCanonicalHoweverThePeerIsWritten() {
        for (String[] c : new String[][] {{"203.0.113.9", "203.0.113.9"}, {"010.000.002.001", "10.0.2.1"},
                {"::ffff:192.0.2.1", "192.0.2.1"}, {"[2001:DB8::1]", "2001:db8::/64"}, {" 192.0.2.1 ", "192.0.2.1"}}) {
            RequestView r = RequestView.builder("GET", "/").remoteAddress(c[0]).build();
            assertThat(KeyResolvers.parse("ip", DIRECT).resolve(r)).as(c[0]).isEqualTo(c[1]);
        }
    }

    @Test
    void aPeerThatIsNoIpAddressIsKeyedByItsOwnText() {
        RequestView unixSocket = RequestView.builder("GET", "/").remoteAddress("/run/app.sock").build();
        RequestView none = RequestView.builder("GET", "/").remoteAddress("").build();

        assertThat(KeyResolvers.parse("ip", DIRECT).resolve(unixSocket)).isEqualTo("/run/app.sock");
        assertThat(KeyResolvers.parse("ip", DIRECT).resolve(none)).isNull();
    }

    @Test
    void requestsThatCannotBeKeyedCountPerClientNotUnderOneKeyForAll() {
        ClientIpResolver proxied = ClientIpResolver.trusting(List.of(Cidr.parse("t", "127.0.0.1")),
                ClientIpResolver.Header.X_FORWARDED_FOR);
        KeyResolver query = KeyResolvers.parse("query:client", proxied);
        KeyResolver throwing = KeyResolvers.parse("key", "token", proxied, java.util.Map.of("token", r -> {
            throw new IllegalArgumentException("malformed token");
        }));

        assertThat(query.resolve(from("198.51.100.7", QueryStrings.TOO_LONG)))
                .as("the client behind the trusted proxy").isEqualTo("#query-too-long|198.51.100.7");
        assertThat(query.resolve(from("198.51.100.8", QueryStrings.TOO_LONG))).isEqualTo("#query-too-long|198.51.100.8");
        assertThat(query.resolve(from("2001:db8::1", QueryStrings.MALFORMED))).as("IPv6 grouped as the ip key groups it")
                .isEqualTo("#query-malformed|2001:db8::/64");
        assertThat(query.resolve(from("198.51.100.7", "#query-too-long"))).as("a client's own \"#...\" is hashed")
                .startsWith("#").doesNotContain("|").hasSize(23);
        assertThat(query.resolve(from("198.51.100.7", "c1"))).isEqualTo("c1");

        assertThatThrownBy(() -> throwing.resolve(from("198.51.100.7", "c1"))).hasMessage("malformed token");
        assertThat(throwing.keyOnFailure(from("198.51.100.7", "c1"))).isEqualTo("#key-failed|198.51.100.7");
        assertThat(throwing.keyOnFailure(RequestView.builder("GET", "/").remoteAddress("").build()))
                .as("no client address at all: the one shared key").isEqualTo(io.sluice.core.Rule.FAILED_KEY);
        assertThat(((KeyResolver) r -> "k").keyOnFailure(REQUEST)).as("a resolver of the application's own")
                .isEqualTo(io.sluice.core.Rule.FAILED_KEY);
        assertThat(throwing).hasToString("token");
    }

    @Test
    void aCombinationWithAnUnreadableQueryKeysAsTheMarkerPerClient() {
        KeyResolver combined = KeyResolvers.parse("query:client+path", ClientIpResolver.trusting(
                List.of(Cidr.parse("t", "127.0.0.1")), ClientIpResolver.Header.X_FORWARDED_FOR));
        assertThat(combined.resolve(from("198.51.100.7", QueryStrings.TOO_LONG))).isEqualTo("#query-too-long|198.51.100.7");
        assertThat(combined.resolve(from("198.51.100.8", QueryStrings.MALFORMED))).isEqualTo("#query-malformed|198.51.100.8");
        assertThat(combined.resolve(from("198.51.100.8", "c1"))).isEqualTo("c1|/");
    }

    @Test
    void theFallbackGroupsIpv6ClientsAsCoarselyAsTheKeysOwnIpPart() {
        KeyResolver throwing = KeyResolvers.parse("key", "ip/48+token", DIRECT, java.util.Map.of("token", r -> {
            throw new IllegalArgumentException("malformed token");
        }));
        assertThat(throwing.keyOnFailure(RequestView.builder("GET", "/").remoteAddress("2001:db8:1:2::7").build()))
                .isEqualTo("#key-failed|2001:db8:1::/48");
    }

    /** An application's resolver that always throws, with a failure key of its own. */
    private static final KeyResolver NO_TENANT = new KeyResolver() {
        @Override
        public String resolve(RequestView request) {
            throw new IllegalStateException("no tenant");
        }

        @Override
        public String keyOnFailure(RequestView request) {
            return "tenant-failed";
        }
    };

    @Test
    void aResolversOwnKeyOnFailureIsKeptAndTheOuterClientAddressWins() {
        KeyResolver tenant = NO_TENANT;
        ClientIpResolver proxied = ClientIpResolver.trusting(List.of(Cidr.parse("t", "127.0.0.1")),
                ClientIpResolver.Header.X_FORWARDED_FOR);
        assertThat(KeyResolvers.parse("key", "tenant", proxied, java.util.Map.of("tenant", tenant))
                .keyOnFailure(from("198.51.100.7", "c1"))).isEqualTo("tenant-failed");

        KeyResolver query = KeyResolvers.perClientFailures(KeyResolvers.query("client"), DIRECT);
        assertThat(KeyResolvers.perClientFailures(query, proxied).resolve(from("198.51.100.7", QueryStrings.TOO_LONG)))
                .as("wrapped again: the new client address, not the proxy's").isEqualTo("#query-too-long|198.51.100.7");
    }

    @Test
    void anApplicationsResolverHasItsKeysHeldInTheirStoredForm() {
        KeyResolver raw = r -> r.header("X-User");           // client text, as an application's resolver may return it
        String huge = "u".repeat(8_192);
        for (KeyResolver held : List.of(
                new Rule("r", io.sluice.core.request.RequestMatcher.ALL, raw, io.sluice.core.policy.Policy.parse("10/1m"), null, 1,
                        Rule.Mode.ENFORCE, Rule.FailureMode.ALLOW, Rule.MissingKey.SKIP).key(),
                KeyResolvers.parse("key", "user", DIRECT, java.util.Map.of("user", raw)),
                KeyResolvers.perClientFailures(raw, DIRECT))) {
            assertThat(held.resolve(user("#key-failed|198.51.100.9"))).as("no client can send a fallback key as its own")
                    .isEqualTo(KeyResolvers.stored("#key-failed|198.51.100.9")).startsWith("#").doesNotContain("|");
            assertThat(held.resolve(user(huge))).as("memory does not grow with the client's text").hasSize(23);
            assertThat(held.resolve(user("  alice "))).isEqualTo("alice");
            assertThat(held.resolve(user("   "))).as("blank: missing, as a built-in part's").isNull();
        }
        KeyResolver combined = KeyResolvers.combine(List.of(raw, KeyResolvers.method()));
        assertThat(combined.resolve(user(huge))).as("a part of a combination, bounded too").hasSize(23 + "|GET".length());
    }

    @Test
    void storingWrapsOnlyTheApplicationsResolversAndOnlyOnce() {
        KeyResolver raw = r -> "k";
        KeyResolver held = KeyResolvers.storing(raw);
        assertThat(held).isNotSameAs(raw).hasToString(raw.toString());
        assertThat(KeyResolvers.storing(held)).isSameAs(held);
        KeyResolver header = KeyResolvers.header("X-Api-Key");
        assertThat(KeyResolvers.storing(header)).as("Sluice's own: stored forms already").isSameAs(header);
        KeyResolver parsed = KeyResolvers.parse("ip+path", DIRECT);
        assertThat(KeyResolvers.storing(parsed)).isSameAs(parsed);
        String longPath = "/" + "p".repeat(100);
        assertThat(parsed.resolve(RequestView.builder("GET", longPath).remoteAddress("198.51.100.7").build()))
                .as("not hashed twice").isEqualTo("198.51.100.7|" + KeyResolvers.stored(longPath));

        KeyResolver failing = NO_TENANT;
        assertThat(KeyResolvers.storing(failing).keyOnFailure(REQUEST)).isEqualTo("tenant-failed");
    }

    private static RequestView user(String value) {
        return RequestView.builder("GET", "/").remoteAddress("198.51.100.7").header("X-User", value).build();
    }

    /** A request from {@code client}, behind a proxy at 127.0.0.1, whose query parameter {@code client} is {@code value}. */
    private static RequestView from(String client, String value) {
        return RequestView.builder("GET", "/").remoteAddress("127.0.0.1").header("X-Forwarded-For", client)
                .query("client", value).build();
    }

    @Test
    void resolversPrintAsTheirSpecification() {
        assertThat(KeyResolvers.parse("ip + header:X-Api-Key", DIRECT)).hasToString("ip+header:X-Api-Key");
        assertThat(KeyResolvers.parse("ip/56", DIRECT)).hasToString("ip/56");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "ipaddress", "header:", "header:X Api", "ip/0", "ip/129", "ip/x", "ip+", "path:x",
            "attribute:", "query: "})
    void badSpecificationsNameTheParameterAndQuoteTheValue(String spec) {
        assertThatThrownBy(() -> KeyResolvers.parse(spec, DIRECT))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("key: expected")
                .hasMessageEndingWith("got \"" + spec + "\"");
    }

    @Test
    void anUnknownPartListsTheSyntax() {
        assertThatThrownBy(() -> KeyResolvers.parse("rules[0] (api).key", "cookie:session", DIRECT))
                .hasMessage("rules[0] (api).key: expected ip, ip/<bits>, header:<name>, attribute:<name>, query:<name>, "
                        + "principal, path, method or global, or several joined with '+' such as \"ip+path\", "
                        + "got \"cookie:session\"");
    }
}
