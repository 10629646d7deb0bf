package io.sluice.core.key;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.request.RequestView;
import io.sluice.core.request.SimpleRequestView;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class ClientIpResolverTest {

    private static final ClientIpResolver BEHIND_10_8 =
            ClientIpResolver.trusting(List.of(Cidr.parse("t", "10.0.0.0/8")), ClientIpResolver.Header.X_FORWARDED_FOR);
    private static final ClientIpResolver FORWARDED =
            ClientIpResolver.trusting(List.of(Cidr.parse("t", "10.0.0.0/8")), ClientIpResolver.Header.FORWARDED);

    private static SimpleRequestView.Builder from(String peer) {
        return RequestView.builder("GET", "/").remoteAddress(peer);
    }

    @Test
    void withoutTrustedProxiesTheSocketPeerIsTheClientWhateverTheHeadersSay() {
        RequestView r = from("203.0.113.9").header("X-Forwarded-For", "1.2.3.4").header("Forwarded", "for=1.2.3.4").build();

        assertThat(ClientIpResolver.direct().resolve(r)).isEqualTo("203.0.113.9");
    }

    @Test
    void forwardingHeadersFromAnUntrustedPeerAreIgnored() {
        RequestView r = from("203.0.113.9").header("X-Forwarded-For", "1.2.3.4").build();

        assertThat(BEHIND_10_8.resolve(r)).isEqualTo("203.0.113.9");
    }

    @Test
    void behindATrustedProxyTheRightMostUntrustedEntryIsTheClient() {
        RequestView r = from("10.0.0.2").header("X-Forwarded-For", "6.6.6.6, 203.0.113.9, 10.0.0.1").build();

        assertThat(BEHIND_10_8.resolve(r)).as("6.6.6.6 is what the client claimed; 10.0.0.1 is our proxy")
                .isEqualTo("203.0.113.9");
    }

    @Test
    void severalHeaderLinesAreOneListInOrder() {
        RequestView r = from("10.0.0.2").header("X-Forwarded-For", "6.6.6.6, 198.51.100.7")
                .header("X-Forwarded-For", "10.0.0.5").build();

        assertThat(BEHIND_10_8.resolve(r)).isEqualTo("198.51.100.7");
    }

    @Test
    void whenEveryHopIsTrustedTheLeftMostIsTheClient() {
        RequestView r = from("10.0.0.2").header("X-Forwarded-For", "10.1.1.1, 10.0.0.1").build();

        assertThat(BEHIND_10_8.resolve(r)).isEqualTo("10.1.1.1");
    }

    @Test
    void aTrustedPeerWithoutTheHeaderIsItselfTheClient() {
        assertThat(BEHIND_10_8.resolve(from("10.0.0.2").build())).isEqualTo("10.0.0.2");
    }

    @Test
    void anEntryThatIsNotAnAddressStandsForTheNearestTrustedHop() {
        RequestView unknown = from("10.0.0.2").header("X-Forwarded-For", "1.2.3.4, unknown, 10.0.0.1").build();
        RequestView garbage = from("10.0.0.2").header("X-Forwarded-For", "1.2.3.4, <script>").build();

        assertThat(BEHIND_10_8.resolve(unknown)).isEqualTo("10.0.0.1");
        assertThat(BEHIND_10_8.resolve(garbage)).isEqualTo("10.0.0.2");
    }

    @Test
    void portsAndBracketsAreStrippedAndAddressesComeBackCanonical() {
        RequestView v4 = from("10.0.0.2").header("X-Forwarded-For", "203.0.113.9:5555").build();
        RequestView v6 = from("10.0.0.2").header("X-Forwarded-For", "[2001:DB8:0:0:0:0:0:1]:443").build();
        RequestView mapped = from("10.0.0.2").header("X-Forwarded-For", "::ffff:203.0.113.9").build();

        assertThat(BEHIND_10_8.resolve(v4)).isEqualTo("203.0.113.9");
        assertThat(BEHIND_10_8.resolve(v6)).isEqualTo("2001:db8::1");
        assertThat(BEHIND_10_8.resolve(mapped)).as("IPv4-mapped IPv6 is the IPv4 client").isEqualTo("203.0.113.9");
    }

    @Test
    void rfc7239ForwardedIsReadFromTheRightWithQuotedIpv6AndPorts() {
        RequestView r = from("10.0.0.2")
                .header("Forwarded", "for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\";proto=https;by=10.0.0.1, for=10.0.0.1")
                .build();

        assertThat(FORWARDED.resolve(r)).isEqualTo("2001:db8:cafe::17");
    }

    @Test
    void forwardedTreatsUnknownAndObfuscatedNodesAsNoAddress() {
        RequestView hidden = from("10.0.0.2").header("Forwarded", "for=1.2.3.4, for=_hidden").build();
        RequestView noFor = from("10.0.0.2").header("Forwarded", "proto=https").build();

        assertThat(FORWARDED.resolve(hidden)).isEqualTo("10.0.0.2");
        assertThat(FORWARDED.resolve(noFor)).isEqualTo("10.0.0.2");
    }

    @Test
    void forwardedQuotedCommasDoNotSplitElements() {
        RequestView r = from("10.0.0.2").header("Forwarded", "for=198.51.100.7;ext=\"a,b\"").build();

        assertThat(FORWARDED.resolve(r)).isEqualTo("198.51.100.7");
    }

    @Test
    void onlyTheConfiguredHeaderIsRead() {
        RequestView r = from("10.0.0.2").header("Forwarded", "for=6.6.6.6").header("X-Forwarded-For", "198.51.100.7").build();

        assertThat(BEHIND_10_8.resolve(r)).isEqualTo("198.51.100.7");
        assertThat(FORWARDED.resolve(r)).isEqualTo("6.6.6.6");
    }

    @Test
    void aHugeHeaderIsReadOnlyFromTheRightWithinItsBudget() {
        String padding = "10.0.0.1, ".repeat(100_000);
        RequestView trustedChain = from("10.0.0.2").header("X-Forwarded-For", "203.0.113.9, " + padding + "10.0.0.1").build();
        RequestView clientAtRight = from("10.0.0.2").header("X-Forwarded-For", "x".repeat(1_000_000) + ", 198.51.100.7").build();

        assertThat(BEHIND_10_8.resolve(trustedChain)).as("stops after MAX_HOPS trusted hops").isEqualTo("10.0.0.1");
        assertThat(BEHIND_10_8.resolve(clientAtRight)).isEqualTo("198.51.100.7");
    }

    @Test
    void aPeerThatIsNotAnIpAddressHasNoClientIp() {
        assertThat(ClientIpResolver.direct().resolve(from("").build())).isNull();
        assertThat(ClientIpResolver.direct().resolve(from("localhost").build())).as("never resolves names").isNull();
    }

    @Property(tries = 500)
    void neverThrowsOnArbitraryHeaders(@ForAll @StringLength(max = 300) String xff, @ForAll @StringLength(max = 300) String fwd) {
        RequestView r = from("10.0.0.2").header("X-Forwarded-For", xff).header("Forwarded", fwd).build();

        String viaXff = BEHIND_10_8.resolve(r);
        String viaForwarded = FORWARDED.resolve(r);

        assertThat(IpAddress.parse(viaXff)).isNotNull();
        assertThat(IpAddress.parse(viaForwarded)).isNotNull();
    }

    @Property(tries = 300)
    void neverThrowsOnQuoteAndCommaSoup(@ForAll("soup") String header) {
        RequestView r = from("10.0.0.2").header("X-Forwarded-For", header).header("Forwarded", header).build();

        assertThat(BEHIND_10_8.resolve(r)).isNotNull();
        assertThat(FORWARDED.resolve(r)).isNotNull();
    }

    @net.jqwik.api.Provide
    net.jqwik.api.Arbitrary<String> soup() {
        return net.jqwik.api.Arbitraries.strings().withChars("\"\\,;=[]:for1.0 _").ofMaxLength(200);
    }

    @Test
    void aCanonicalIpv4PeerIsTakenAsItsOwnTextUnlessItIsATrustedProxy() {
        String peer = "203.0.113.9";
        assertThat(ClientIpResolver.direct().resolve(from(peer).build(), 64)).as("not parsed and formatted")
                .isSameAs(peer);
        assertThat(BEHIND_10_8.resolve(from(peer).header("X-Forwarded-For", "198.51.100.7").build(), 64))
                .as("no proxy: its header is ignored").isSameAs(peer);
        assertThat(BEHIND_10_8.resolve(from("10.0.0.2").build(), 64)).as("a proxy without the header: itself")
                .isEqualTo("10.0.0.2");
        assertThat(ClientIpResolver.direct().resolve(from("::1").build(), 128)).isEqualTo("::1");
        assertThat(BEHIND_10_8.resolve(from("010.0.0.2").header("X-Forwarded-For", "198.51.100.7").build(), 64))
                .as("a proxy written non-canonically").isEqualTo("198.51.100.7");
        assertThat(BEHIND_10_8.resolve(from("::ffff:10.0.0.2").header("X-Forwarded-For", "198.51.100.7").build(), 64))
                .as("a proxy as an IPv4-mapped address").isEqualTo("198.51.100.7");
        ClientIpResolver behindV6 = ClientIpResolver.trusting(List.of(Cidr.parse("t", "2001:db8::/32")),
                ClientIpResolver.Header.X_FORWARDED_FOR);
        assertThat(behindV6.resolve(from("2001:db8::5").header("X-Forwarded-For", "2001:db9::7").build(), 64))
                .as("behind an IPv6 proxy").isEqualTo("2001:db9::/64");
        assertThat(behindV6.resolve(from("2001:db8::5").build(), 128)).as("the IPv6 proxy itself, without a header")
                .isEqualTo("2001:db8::5");
        assertThat(ClientIpResolver.direct().resolve(from("010.000.002.001").build())).isEqualTo("10.0.2.1");
        assertThat(BEHIND_10_8.resolve(from("10.0.0.2").header("X-Forwarded-For", "198.51.100.7").build()))
                .isEqualTo("198.51.100.7");
    }
}
