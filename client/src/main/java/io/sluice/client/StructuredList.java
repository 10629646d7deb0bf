package io.sluice.client;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A bounded reader of the structured-field lists (RFC 9651) that {@code RateLimit} and {@code RateLimit-Policy} are:
 * {@code "per-ip";q=100;w=60, "daily";q=1000;w=86400}. Each member's parameters are kept as their text (integers,
 * tokens and strings; what a member or parameter is called is not needed). Input past {@value #MAX_LENGTH} characters,
 * past {@value #MAX_MEMBERS} members or {@value #MAX_PARAMETERS} parameters a member, or that is not a valid list, reads
 * as no list at all, as RFC 9651 says a field that fails to parse is ignored: a hostile server costs bounded work.
 */
final class StructuredList {

    /** The longest field read: {@value} characters. */
    static final int MAX_LENGTH = 4096;
    /** The most members read: {@value}. */
    static final int MAX_MEMBERS = 16;
    /** The most parameters of one member: {@value}. */
    static final int MAX_PARAMETERS = 16;

    private final String s;
    private int i;

    private StructuredList(String s) {
        this.s = s;
    }

    /**
     * @param fields the field's lines, joined as one list (RFC 9110, section 5.3)
     * @return each member's parameters, by name; empty when the field is absent, too long or not a valid list
     */
    static List<Map<String, String>> parse(List<String> fields) {
        if (fields == null || fields.isEmpty()) {
            return List.of();
        }
        String joined = fields.size() == 1 ? fields.get(0) : String.join(",", fields);
        if (joined == null || joined.length() > MAX_LENGTH) {
            return List.of();
        }
        try {
            return new StructuredList(joined).list();
        } catch (IllegalArgumentException e) {      // not a list: ignored
            return List.of();
        }
    }

    private List<Map<String, String>> list() {
        List<Map<String, String>> members = new ArrayList<>(2);
        skipSpaces();
        while (i < s.length()) {
            if (members.size() == MAX_MEMBERS) {
                throw new IllegalArgumentException("too many members");
            }
            item();                                     // the member's own value (its name): not needed
            members.add(parameters());
            skipSpaces();
            if (i == s.length()) {
                break;
            }
            expect(',');
            skipSpaces();
            if (i == s.length()) {
                throw new IllegalArgumentException("a trailing comma");
            }
        }
        return members;
    }

    private Map<String, String> parameters() {
        Map<String, String> params = new HashMap<>(4);
        while (i < s.length() && s.charAt(i) == ';') {
            i++;
            while (i < s.length() && s.charAt(i) == ' ') {
                i++;
            }
            String name = key();
            String value = "?1";                        // a parameter without a value is boolean true
            if (i < s.length() && s.charAt(i) == '=') {
                i++;
                value = item();
            }
            if (params.size() == MAX_PARAMETERS && !params.containsKey(name)) {
                throw new IllegalArgumentException("too many parameters");
            }
            params.put(name, value);
        }
        return params;
    }

    /** @return a bare item's text: a string without its quotes, else as written */
    private String item() {
        if (i >= s.length()) {
            throw new IllegalArgumentException("an item is missing");
        }
        char c = s.charAt(i);
        if (c == '"') {
            return string();
        }
        int start = i;
        if (c == ':') {                                 // a byte sequence: :base64:
            int end = s.indexOf(':', i + 1);
            if (end < 0) {
                throw new IllegalArgumentException("an unterminated byte sequence");
            }
            i = end + 1;
            return s.substring(start, i);
        }
        while (i < s.length() && bareItemChar(s.charAt(i))) {
            i++;
        }
        if (i == start) {
            throw new IllegalArgumentException("an item is missing");
        }
        return s.substring(start, i);
    }

    private String string() {
        StringBuilder out = new StringBuilder();
        i++;
        while (i < s.length()) {
            char c = s.charAt(i++);
            if (c == '"') {
                return out.toString();
            }
            if (c == '\\') {
                if (i == s.length()) {
                    break;
                }
                c = s.charAt(i++);
                if (c != '"' && c != '\\') {
                    throw new IllegalArgumentException("an invalid escape");
                }
            } else if (c < 0x20 || c > 0x7e) {
                throw new IllegalArgumentException("an invalid character in a string");
            }
            out.append(c);
        }
        throw new IllegalArgumentException("an unterminated string");
    }

    private String key() {
        int start = i;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '*')) {
                break;
            }
            i++;
        }
        if (i == start) {
            throw new IllegalArgumentException("a parameter's name is missing");
        }
        return s.substring(start, i);
    }

    /** The characters of tokens, integers, decimals and booleans ({@code ?1}). */
    private static boolean bareItemChar(char c) {
        return c > 0x20 && c < 0x7f && c != ',' && c != ';' && c != '=' && c != '"' && c != '(' && c != ')';
    }

    private void expect(char c) {
        if (i >= s.length() || s.charAt(i) != c) {
            throw new IllegalArgumentException("expected " + c);
        }
        i++;
    }

    private void skipSpaces() {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
    }
}
