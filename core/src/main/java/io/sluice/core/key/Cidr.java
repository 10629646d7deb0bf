package io.sluice.core.key;

import io.sluice.core.config.ConfigException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An address block such as {@code 10.0.0.0/8} or {@code 2001:db8::/32}; a bare address is a block of one
 * ({@code /32} or {@code /128}). Host bits after the prefix are ignored: {@code 10.1.2.3/8} is {@code 10.0.0.0/8}.
 * An IPv4 block also matches the IPv4-mapped IPv6 form of its addresses.
 */
public final class Cidr {

    private static final System.Logger LOG = System.getLogger(Cidr.class.getName());

    private final byte[] network;
    private final int prefixBits;

    private Cidr(byte[] network, int prefixBits) {
        this.network = IpAddress.mask(network, prefixBits);
        this.prefixBits = prefixBits;
    }

    /**
     * @param parameter names the configuration parameter in the error
     * @throws ConfigException when {@code text} is not an address or block
     */
    public static Cidr parse(String parameter, String text) {
        String s = text == null ? "" : text.trim();
        int slash = s.indexOf('/');
        byte[] address = IpAddress.parse(slash < 0 ? s : s.substring(0, slash));
        if (address == null) {
            throw new ConfigException(parameter, text,
                    "expected an IP address or CIDR block such as \"10.0.0.0/8\", \"192.168.1.7\" or \"2001:db8::/32\"");
        }
        int max = address.length * 8;
        // an IPv4-mapped IPv6 block (::ffff:10.0.0.0/104) is kept as the IPv4 block it maps (10.0.0.0/8)
        int offset = address.length == 4 && s.substring(0, slash < 0 ? s.length() : slash).contains(":") ? 96 : 0;
        int bits = max;
        if (slash >= 0) {
            String digits = s.substring(slash + 1);
            bits = digits.matches("\\d{1,3}") ? Integer.parseInt(digits) - offset : -1;
            if (bits < 0 || bits > max) {
                throw new ConfigException(parameter, text, "expected a prefix length between " + offset + " and "
                        + (max + offset));
            }
        }
        Cidr block = new Cidr(address, bits);
        if (!Arrays.equals(block.network, address)) {
            LOG.log(System.Logger.Level.WARNING, parameter + ": " + text.trim() + " has bits set after its /"
                    + (bits + offset) + " prefix and is read as the block " + block + "; write " + block
                    + " to say so, or the address alone for one address");
        }
        return block;
    }

    /**
     * Parses a comma- or whitespace-separated list; blank means none.
     *
     * @throws ConfigException naming the first bad entry
     */
    public static List<Cidr> parseList(String parameter, String text) {
        List<Cidr> out = new ArrayList<>();
        if (text == null) {
            return out;
        }
        for (String entry : text.split("[,\\s]+")) {
            if (!entry.isEmpty()) {
                out.add(parse(parameter, entry));
            }
        }
        return out;
    }

    /** @return whether {@code address} (an IP literal) lies in this block; false for anything else */
    public boolean contains(String address) {
        byte[] a = IpAddress.parse(address);
        return a != null && contains(a);
    }

    boolean contains(byte[] address) {
        return address.length == network.length && Arrays.equals(IpAddress.mask(address, prefixBits), network);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cidr c && c.prefixBits == prefixBits && Arrays.equals(c.network, network);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(network) * 31 + prefixBits;
    }

    /** @return the canonical block, such as {@code 10.0.0.0/8} */
    @Override
    public String toString() {
        return IpAddress.format(network) + "/" + prefixBits;
    }
}
