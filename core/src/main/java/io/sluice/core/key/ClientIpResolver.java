package io.sluice.core.key;

import io.sluice.core.request.RequestView;
import io.sluice.core.config.ConfigException;
import java.util.List;
import java.util.Locale;

/**
 * Finds the client's IP address: the socket peer, unless the peer is a trusted proxy. Then the forwarding header
 * is read from the right (the entry the nearest proxy appended) leftwards, skipping trusted proxies; the first
 * untrusted address is the client. Everything left of it was written by the client itself and is ignored, so a
 * client cannot pick its own key by sending {@code X-Forwarded-For: 1.2.3.4}.
 *
 * <p>Example: trusted {@code 10.0.0.0/8}, peer {@code 10.0.0.2}, {@code X-Forwarded-For: 6.6.6.6, 203.0.113.9, 10.0.0.1}
 * → {@code 203.0.113.9} ({@code 10.0.0.1} is a trusted proxy; {@code 6.6.6.6} is whatever the client claimed).
 *
 * <p>Only one header is read, {@link Header#X_FORWARDED_FOR} by default: reading a second one that the proxy does not
 * write would let clients forge it. An entry that is not an IP address ({@code unknown}, an obfuscated
 * {@code _node}, garbage) where the client should be stands for the nearest trusted hop, whose address is returned.
 * When every hop is trusted, the left-most is returned.
 *
 * <p>Robust to hostile input: never throws, never resolves names, reads at most {@value #MAX_CHARS} characters and
 * {@value #MAX_HOPS} hops from the right. Addresses come back canonical (IPv4 dotted quad, IPv6 per RFC 5952,
 * IPv4-mapped IPv6 as IPv4), so one client has one key however it is written.
 */
public final class ClientIpResolver {

    /** At most this many characters of the forwarding headers are examined, from the right. */
    static final int MAX_CHARS = 4096;
    /** At most this many hops are examined, from the right. */
    static final int MAX_HOPS = 32;

    /** The forwarding header trusted proxies write. */
    public enum Header {
        /** {@code X-Forwarded-For: client, proxy1, proxy2}: the common de-facto header. */
        X_FORWARDED_FOR("X-Forwarded-For", "x-forwarded-for"),
        /** RFC 7239 {@code Forwarded: for=client;proto=https, for="[2001:db8::1]:4711"}. */
        FORWARDED("Forwarded", "forwarded");

        private final String fieldName;
        private final String id;

        Header(String fieldName, String id) {
            this.fieldName = fieldName;
            this.id = id;
        }

        /** @return the HTTP field name */
        public String fieldName() {
            return fieldName;
        }

        /** @throws ConfigException unless {@code text} is {@code x-forwarded-for} or {@code forwarded} */
        public static Header parse(String parameter, String text) {
            String wanted = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
            for (Header h : values()) {
                if (h.id.equals(wanted)) {
                    return h;
                }
            }
            throw new ConfigException(parameter, text, "expected \"x-forwarded-for\" or \"forwarded\"");
        }

        @Override
        public String toString() {
            return id;
        }
    }

    private static final ClientIpResolver DIRECT = new ClientIpResolver(List.of(), Header.X_FORWARDED_FOR);

    private final List<Cidr> trusted;
    private final Header header;

    private ClientIpResolver(List<Cidr> trusted, Header header) {
        this.trusted = List.copyOf(trusted);
        this.header = header;
    }

    /** @return a resolver that trusts no proxy: the client is always the socket peer */
    public static ClientIpResolver direct() {
        return DIRECT;
    }

    /**
     * @param proxies the address blocks of proxies whose forwarding header is believed
     * @param header the header those proxies append to
     */
    public static ClientIpResolver trusting(List<Cidr> proxies, Header header) {
        return proxies.isEmpty() ? DIRECT : new ClientIpResolver(proxies, header);
    }

    /** @return the client's canonical IP address, or null when the socket peer is not an IP address */
    public String resolve(RequestView request) {
        return resolve(request, 128);
    }

    /**
     * The client's address as a key: an IPv4 address, or an IPv6 address grouped by its /{@code ipv6PrefixBits} prefix
     * (masked, with {@code "/bits"} appended; 128: the address itself).
     *
     * @return the key text, or null when the socket peer is not an IP address
     */
    String resolve(RequestView request, int ipv6PrefixBits) {
        String peer = request.remoteAddress();
        byte[] a;
        if (IpAddress.isCanonicalV4(peer)) {
            if (trusted.isEmpty()) {
                return peer;                              // an IPv4 peer's text is its canonical address already
            }
            byte[] parsed = IpAddress.parse(peer);        // parsed once, whether the peer is a proxy or the client
            if (!isTrusted(parsed)) {
                return peer;
            }
            a = behindProxy(request, parsed);
        } else {
            a = IpAddress.parse(peer);
            if (a == null) {
                return null;
            }
            if (isTrusted(a)) {
                a = behindProxy(request, a);
            }
        }
        if (a.length == 4 || ipv6PrefixBits >= 128) {
            return IpAddress.format(a);
        }
        return IpAddress.format(IpAddress.mask(a, ipv6PrefixBits)) + "/" + ipv6PrefixBits;
    }

    /** @return the right-most untrusted address of the forwarding header behind {@code peer}, a trusted proxy */
    private byte[] behindProxy(RequestView request, byte[] peer) {
        List<String> lines = request.headers(header.fieldName());
        Hops hops = new Hops(lines == null ? List.of() : lines);
        byte[] last = peer;
        for (int n = 0; n < MAX_HOPS; n++) {
            String hop = hops.next();
            if (hop == null) {
                return last;
            }
            byte[] address = IpAddress.parse(header == Header.FORWARDED ? forwardedFor(hop) : withoutPort(hop));
            if (address == null || !isTrusted(address)) {
                return address == null ? last : address;
            }
            last = address;
        }
        return last;
    }

    private boolean isTrusted(byte[] address) {
        for (int i = 0; i < trusted.size(); i++) {
            if (trusted.get(i).contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** {@code [2001:db8::1]:4711} → {@code 2001:db8::1}; {@code 192.0.2.1:80} → {@code 192.0.2.1}; bare IPv6 unchanged. */
    static String withoutPort(String node) {
        if (node.startsWith("[")) {
            int close = node.indexOf(']');
            return close < 0 ? node : node.substring(1, close);
        }
        int colon = node.indexOf(':');
        return colon >= 0 && node.indexOf(':', colon + 1) < 0 ? node.substring(0, colon) : node;
    }

    /** @return the node of the {@code for} parameter of one {@code Forwarded} element, without quotes and port */
    static String forwardedFor(String element) {
        int start = 0;
        while (start < element.length()) {
            int end = nextSeparator(element, start);
            String pair = element.substring(start, end).trim();
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).trim().equalsIgnoreCase("for")) {
                return withoutPort(unquote(pair.substring(eq + 1).trim()));
            }
            start = end + 1;
        }
        return null;
    }

    private static int nextSeparator(String s, int from) {
        boolean quoted = false;
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && quoted) {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == ';' && !quoted) {
                return i;
            }
        }
        return s.length();
    }

    private static String unquote(String value) {
        if (value.length() < 2 || value.charAt(0) != '"' || value.charAt(value.length() - 1) != '"') {
            return value;
        }
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 1; i < value.length() - 1; i++) {
            char c = value.charAt(i);
            if (c == '\\' && i + 1 < value.length() - 1) {
                c = value.charAt(++i);
            }
            out.append(c);
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return trusted.isEmpty() ? "socket peer (no trusted proxies)" : "right-most untrusted " + header.fieldName()
                + " entry behind trusted proxies " + trusted;
    }

    /**
     * The comma-separated elements of the header's field lines, from the right; quoted commas do not split. Stops
     * after {@link #MAX_CHARS} characters.
     */
    private static final class Hops {
        private final List<String> lines;
        private int line;
        private int end;
        private int budget = MAX_CHARS;

        Hops(List<String> lines) {
            this.lines = lines;
            this.line = lines.size();
            this.end = -1;
        }

        /** @return the next element leftwards, trimmed and non-empty; null when none are left or the budget is spent */
        String next() {
            while (true) {
                if (end < 0) {
                    if (--line < 0) {
                        return null;
                    }
                    String value = lines.get(line);
                    end = value == null ? -1 : value.length();
                    continue;
                }
                String value = lines.get(line);
                int i = end - 1;
                boolean quoted = false;
                for (; i >= 0; i--) {
                    if (--budget < 0) {
                        return null;
                    }
                    char c = value.charAt(i);
                    if (c == '"' && !escaped(value, i)) {
                        quoted = !quoted;
                    } else if (c == ',' && !quoted) {
                        break;
                    }
                }
                String element = value.substring(i + 1, end).trim();
                end = i;        // the comma, or -1: the next call reads leftwards of it
                if (!element.isEmpty()) {
                    return element;
                }
            }
        }

        /** @return whether the quote at {@code i} is preceded by an odd run of backslashes (looks back a bounded way) */
        private static boolean escaped(String s, int i) {
            int run = 0;
            for (int j = i - 1; j >= 0 && s.charAt(j) == '\\' && run < 64; j--) {
                run++;
            }
            return run % 2 == 1;
        }
    }
}
