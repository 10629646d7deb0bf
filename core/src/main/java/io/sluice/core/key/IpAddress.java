package io.sluice.core.key;

/**
 * IP literals without DNS: {@link java.net.InetAddress#getByName} resolves names, and a header value must never
 * cause a lookup. Parses IPv4 dotted quads and IPv6 (with {@code ::}, an embedded IPv4 tail, brackets and a zone,
 * which is dropped); an IPv4-mapped IPv6 address ({@code ::ffff:1.2.3.4}) becomes its IPv4 address, so one client
 * has one key. Formats IPv6 as RFC 5952 (lower case, longest zero run compressed).
 */
final class IpAddress {

    /** Longer input is not an address: bounds the work on hostile headers. */
    private static final int MAX_LENGTH = 64;

    private IpAddress() {}

    /**
     * @return whether {@code text} is an IPv4 address exactly as {@link #format} writes it (four decimal octets of at
     *     most 255, no leading zero, nothing else), so that {@code format(parse(text))} equals {@code text} and the
     *     text can serve as the key without a parse and format round trip
     */
    static boolean isCanonicalV4(String text) {
        if (text == null) {
            return false;
        }
        int n = text.length();
        if (n < 7 || n > 15) {
            return false;
        }
        int dots = 0;
        int digits = 0;
        int value = 0;
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c == '.') {
                if (digits == 0 || ++dots > 3) {
                    return false;
                }
                digits = 0;
                value = 0;
            } else if (c >= '0' && c <= '9') {
                if (digits == 1 && value == 0) {
                    return false;               // a leading zero: parsed, it would print without it
                }
                value = value * 10 + (c - '0');
                if (++digits > 3 || value > 255) {
                    return false;
                }
            } else {
                return false;
            }
        }
        return dots == 3 && digits > 0;
    }

    /** @return 4 or 16 bytes, or null when {@code text} is not an IP literal */
    static byte[] parse(String text) {
        if (text == null) {
            return null;
        }
        String s = text.trim();
        if (s.length() > MAX_LENGTH || s.isEmpty()) {
            return null;
        }
        if (s.charAt(0) == '[' && s.charAt(s.length() - 1) == ']') {
            s = s.substring(1, s.length() - 1);
        }
        int zone = s.indexOf('%');
        if (zone >= 0) {
            s = s.substring(0, zone);
        }
        if (s.indexOf(':') >= 0) {
            byte[] v6 = parseV6(s);
            return v6 == null ? null : unmapped(v6);
        }
        byte[] v4 = new byte[4];
        return parseV4(s, v4, 0) ? v4 : null;
    }

    /** Writes the four octets of {@code s} at {@code out[offset..offset+3]}; false when {@code s} is not a dotted quad. */
    private static boolean parseV4(String s, byte[] out, int offset) {
        int part = 0;
        int value = 0;
        int digits = 0;
        for (int i = 0; i <= s.length(); i++) {
            char c = i < s.length() ? s.charAt(i) : '.';
            if (c >= '0' && c <= '9') {
                value = value * 10 + (c - '0');
                if (++digits > 3 || value > 255) {
                    return false;
                }
            } else if (c == '.' && digits > 0 && part < 4) {
                out[offset + part++] = (byte) value;
                value = 0;
                digits = 0;
            } else {
                return false;
            }
        }
        return part == 4;
    }

    private static byte[] parseV6(String s) {
        int gap = s.indexOf("::");
        if (gap >= 0 && s.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        byte[] out = new byte[16];
        if (gap < 0) {
            return groups(s, out, 0, 16) == 16 ? out : null;
        }
        byte[] head = new byte[16];
        byte[] tail = new byte[16];
        int headBytes = gap == 0 ? 0 : groups(s.substring(0, gap), head, 0, 16);
        int tailBytes = gap + 2 == s.length() ? 0 : groups(s.substring(gap + 2), tail, 0, 16);
        if (headBytes < 0 || tailBytes < 0 || headBytes + tailBytes > 14) {
            return null;
        }
        System.arraycopy(head, 0, out, 0, headBytes);
        System.arraycopy(tail, 0, out, 16 - tailBytes, tailBytes);
        return out;
    }

    /** Parses colon-separated hex groups (the last may be a dotted quad); @return bytes written, or -1 */
    private static int groups(String s, byte[] out, int offset, int limit) {
        int pos = offset;
        int start = 0;
        while (start <= s.length()) {
            int colon = s.indexOf(':', start);
            String group = colon < 0 ? s.substring(start) : s.substring(start, colon);
            if (colon < 0 && group.indexOf('.') >= 0) {
                if (pos + 4 > limit || !parseV4(group, out, pos)) {
                    return -1;
                }
                return pos + 4 - offset;
            }
            if (group.isEmpty() || group.length() > 4 || pos + 2 > limit) {
                return -1;
            }
            int value = 0;
            for (int i = 0; i < group.length(); i++) {
                int d = hex(group.charAt(i));
                if (d < 0) {
                    return -1;
                }
                value = value * 16 + d;
            }
            out[pos++] = (byte) (value >> 8);
            out[pos++] = (byte) value;
            if (colon < 0) {
                break;
            }
            start = colon + 1;
        }
        return pos - offset;
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }

    private static byte[] unmapped(byte[] v6) {
        for (int i = 0; i < 10; i++) {
            if (v6[i] != 0) {
                return v6;
            }
        }
        if (v6[10] != (byte) 0xff || v6[11] != (byte) 0xff) {
            return v6;
        }
        return new byte[] {v6[12], v6[13], v6[14], v6[15]};
    }

    /** @return the canonical text of an address: dotted quad, or RFC 5952 IPv6 */
    static String format(byte[] a) {
        if (a.length == 4) {
            return (a[0] & 0xff) + "." + (a[1] & 0xff) + "." + (a[2] & 0xff) + "." + (a[3] & 0xff);
        }
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((a[2 * i] & 0xff) << 8) | (a[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;       // RFC 5952: a single zero group is not compressed
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder s = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                s.append("::");
                i += bestLength - 1;
                continue;
            }
            if (s.length() > 0 && s.charAt(s.length() - 1) != ':') {
                s.append(':');
            }
            s.append(Integer.toHexString(g[i]));
        }
        return s.toString();
    }

    /** @return a copy of {@code a} with every bit after the first {@code bits} cleared */
    static byte[] mask(byte[] a, int bits) {
        byte[] out = a.clone();
        for (int i = 0; i < out.length; i++) {
            int keep = Math.max(0, Math.min(8, bits - 8 * i));
            out[i] = (byte) (out[i] & (0xff00 >> keep));
        }
        return out;
    }
}
