package io.sluice.core.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.testing.LogCapture;
import org.junit.jupiter.api.Test;

class CidrTest {

    @Test
    void blocksContainTheirAddressesOnly() {
        Cidr v4 = Cidr.parse("p", "10.0.0.0/8");
        Cidr v6 = Cidr.parse("p", "2001:db8::/32");

        assertThat(v4.contains("10.255.1.2")).isTrue();
        assertThat(v4.contains("11.0.0.1")).isFalse();
        assertThat(v4.contains("::ffff:10.1.1.1")).as("IPv4-mapped form").isTrue();
        assertThat(v6.contains("2001:db8:ffff::1")).isTrue();
        assertThat(v6.contains("2001:db9::1")).isFalse();
        assertThat(v6.contains("10.0.0.1")).isFalse();
        assertThat(v4.contains("not an address")).isFalse();
    }

    @Test
    void aBareAddressIsABlockOfOneAndHostBitsAreIgnored() {
        assertThat(Cidr.parse("p", "192.0.2.7")).hasToString("192.0.2.7/32");
        assertThat(Cidr.parse("p", "::1")).hasToString("::1/128");
        assertThat(Cidr.parse("p", "10.1.2.3/8")).hasToString("10.0.0.0/8").isEqualTo(Cidr.parse("p", "10.0.0.0/8"));
        assertThat(Cidr.parse("p", "::ffff:10.0.0.0/104")).as("an IPv4-mapped block is the IPv4 block it maps")
                .isEqualTo(Cidr.parse("p", "10.0.0.0/8"));
        assertThat(Cidr.parse("p", "::ffff:192.0.2.7")).hasToString("192.0.2.7/32");
    }

    @Test
    void aBlockWithHostBitsIsReadAsItsBlockWithAWarning() {
        try (LogCapture log = new LogCapture(Cidr.class.getName())) {
            assertThat(Cidr.parse("trusted-proxies", " 192.168.1.10/24")).hasToString("192.168.1.0/24");
            assertThat(Cidr.parse("trusted-proxies", "::ffff:192.0.2.7/96")).hasToString("0.0.0.0/0");
            Cidr.parse("trusted-proxies", "10.0.0.0/8");
            Cidr.parse("trusted-proxies", "192.0.2.7");
            Cidr.parse("trusted-proxies", "2001:db8::/32");
            Cidr.parse("trusted-proxies", "::ffff:10.0.0.0/104");

            assertThat(log.warnings()).containsExactly(
                    "trusted-proxies: 192.168.1.10/24 has bits set after its /24 prefix and is read as the block "
                            + "192.168.1.0/24; write 192.168.1.0/24 to say so, or the address alone for one address",
                    "trusted-proxies: ::ffff:192.0.2.7/96 has bits set after its /96 prefix and is read as the block "
                            + "0.0.0.0/0; write 0.0.0.0/0 to say so, or the address alone for one address");
        }
    }

    @Test
    void listsAreCommaOrSpaceSeparated() {
        assertThat(Cidr.parseList("p", " 10.0.0.0/8, 127.0.0.1  ::1 ")).hasSize(3);
        assertThat(Cidr.parseList("p", "")).isEmpty();
    }

    @Test
    void badBlocksNameTheParameterAndValue() {
        assertThatThrownBy(() -> Cidr.parse("trusted-proxies", "10.0.0.0/33"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("trusted-proxies: expected a prefix length between 0 and 32, got \"10.0.0.0/33\"");
        assertThatThrownBy(() -> Cidr.parse("trusted-proxies", "::ffff:10.0.0.0/95"))
                .hasMessage("trusted-proxies: expected a prefix length between 96 and 128, got \"::ffff:10.0.0.0/95\"");
        assertThatThrownBy(() -> Cidr.parse("trusted-proxies", "proxy.internal"))
                .hasMessageStartingWith("trusted-proxies: expected an IP address or CIDR block")
                .hasMessageEndingWith("got \"proxy.internal\"");
    }
}
