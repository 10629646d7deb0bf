package io.sluice.core.key;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpAddressTest {

    @ParameterizedTest
    @CsvSource({
            "192.0.2.1, 192.0.2.1",
            "010.000.002.001, 10.0.2.1",
            "::, ::",
            "::1, ::1",
            "2001:DB8::1, 2001:db8::1",
            "2001:db8:0:0:1:0:0:1, 2001:db8::1:0:0:1",
            "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1",
            "[fe80::1%eth0], fe80::1",
            "::ffff:192.0.2.1, 192.0.2.1",
            "64:ff9b::192.0.2.1, 64:ff9b::c000:201",
            "1:2:3:4:5:6:7:8, 1:2:3:4:5:6:7:8",
    })
    void parsesLiteralsAndFormatsThemCanonically(String text, String canonical) {
        assertThat(IpAddress.format(IpAddress.parse(text))).isEqualTo(canonical);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "localhost", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.-4", "1..2.3", "1:2:3:4:5:6:7:8:9",
            "1::2::3", ":1:2", "1:2:", "12345::", "g::1", "::1.2.3", "\u0661.2.3.4", "1.2.3.4/24"})
    void rejectsAnythingButALiteral(String text) {
        assertThat(IpAddress.parse(text)).isNull();
    }

    @ParameterizedTest
    @CsvSource({"2001:db8:aaaa:bbbb:cccc::1, 64, 2001:db8:aaaa:bbbb::", "192.0.2.255, 25, 192.0.2.128", "::1, 0, ::"})
    void masksToAPrefix(String address, int bits, String network) {
        assertThat(IpAddress.format(IpAddress.mask(IpAddress.parse(address), bits))).isEqualTo(network);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "1.2.3.4", "192.0.2.1", "203.0.113.9", "255.255.255.255", "10.0.100.200"})
    void aCanonicalDottedQuadIsItsOwnKeyText(String text) {
        assertThat(IpAddress.isCanonicalV4(text)).isTrue();
        assertThat(IpAddress.format(IpAddress.parse(text))).isEqualTo(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.04", "1.2.3.00", "010.000.002.001", "256.1.1.1",
            "1.2.3.256", "1000.1.1.1", " 1.2.3.4", "1.2.3.4 ", "1..2.3", ".1.2.3", "1.2.3.", "1.2.3.4:80", "::1",
            "::ffff:1.2.3.4", "1.2.3.-4", "\u0661.2.3.4", "1.2.3.4/24", "a.b.c.d", "1.2.3.4%eth0", "[1.2.3.4]"})
    void anythingElseIsNotCanonical(String text) {
        assertThat(IpAddress.isCanonicalV4(text)).isFalse();
    }

    @org.junit.jupiter.api.Test
    void nullIsNotCanonical() {
        assertThat(IpAddress.isCanonicalV4(null)).isFalse();
    }

    /** The fast path must agree with the round trip on every text: canonical exactly when the round trip is the identity. */
    @Property(tries = 3000)
    void canonicalExactlyWhenTheRoundTripLeavesTheTextAsIs(@ForAll("quadLike") String text) {
        byte[] parsed = IpAddress.parse(text);
        boolean roundTrip = parsed != null && parsed.length == 4 && IpAddress.format(parsed).equals(text);
        assertThat(IpAddress.isCanonicalV4(text)).as(text).isEqualTo(roundTrip);
    }

    @Provide
    Arbitrary<String> quadLike() {
        return Arbitraries.strings().withChars("0123456789.: ").ofMinLength(0).ofMaxLength(17);
    }
}
