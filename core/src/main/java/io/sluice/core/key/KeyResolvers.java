package io.sluice.core.key;

import io.sluice.core.request.RequestMatcher;
import io.sluice.core.request.RequestView;
import io.sluice.core.config.ConfigException;
import io.sluice.core.internal.QueryStrings;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The key syntax, and a resolver for each part of it.
 *
 * <pre>
 * key  := part ("+" part)*                       ip+path   header:X-Api-Key+method
 * part := ip | ip/BITS                           client IP (see {@link ClientIpResolver}); IPv6 grouped by a /BITS prefix
 *       | header:NAME | attribute:NAME | query:NAME
 *       | principal | path | method | global
 * </pre>
 *
 * <p>{@code ip} groups IPv6 clients by their /{@value #DEFAULT_IPV6_PREFIX} prefix (one subscriber usually holds a whole
 * /64, so per-address keys would let one client rotate through 2^64 of them); {@code ip/128} keys each IPv6 address
 * and {@code ip/48} a whole site. IPv4 addresses are never grouped. A socket peer that is not an IP address (a Unix
 * domain socket) is keyed by its own text, so such traffic is still limited, as one client.
 *
 * <p>A part that has no value (no such header, no principal, a blank value) makes the whole key missing: the rule then
 * skips the request or counts it under {@code anonymous} ({@link io.sluice.core.Rule.MissingKey}). Values are trimmed;
 * a value longer than {@value #MAX_RAW_LENGTH} characters is replaced by {@code #} and 22 characters of its SHA-256
 * (base64url), so hostile headers cannot fill memory. In a combination, parts are joined with {@code |} and each
 * part's {@code %} and {@code |} are percent-encoded, so two different requests never share a key by accident.
 */
public final class KeyResolvers {

    /** The IPv6 prefix length {@code ip} groups clients by: {@value}. */
    public static final int DEFAULT_IPV6_PREFIX = 64;
    /** Values longer than this ({@value} characters) are kept as a hash. */
    static final int MAX_RAW_LENGTH = 64;

    private static final String SYNTAX = "expected ip, ip/<bits>, header:<name>, attribute:<name>, query:<name>, "
            + "principal, path, method or global, or several joined with '+' such as \"ip+path\"";
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*.^_`|~0-9A-Za-z-]+");
    private static final Pattern NAME = Pattern.compile("[^\\s+]+");

    private KeyResolvers() {}

    /**
     * Parses a key specification such as {@code ip}, {@code header:X-Api-Key} or {@code ip+path}.
     *
     * @param ips finds the client address for {@code ip}
     * @throws ConfigException naming parameter {@code key} and quoting the specification
     */
    public static KeyResolver parse(String spec, ClientIpResolver ips) {
        return parse("key", spec, ips);
    }

    /** {@link #parse(String, ClientIpResolver)} for configuration parameter {@code parameter}. */
    public static KeyResolver parse(String parameter, String spec, ClientIpResolver ips) {
        return parse(parameter, spec, ips, java.util.Map.of());
    }

    /**
     * {@link #parse(String, String, ClientIpResolver)}, where a part may also be the name of a resolver the
     * application provides (for example a CDI {@code @Named KeyResolver}): {@code tenant}, {@code tenant+ip}.
     */
    public static KeyResolver parse(String parameter, String spec, ClientIpResolver ips,
            java.util.Map<String, KeyResolver> named) {
        if (spec == null || spec.isBlank() || spec.length() > 500) {
            throw new ConfigException(parameter, spec, SYNTAX);
        }
        List<KeyResolver> parts = new ArrayList<>();
        int clientBits = DEFAULT_IPV6_PREFIX;
        for (String part : spec.trim().split("\\s*\\+\\s*", -1)) {
            try {
                parts.add(part(parameter, spec, part, ips));             // built-in keys keep their meaning
                String kind = part.toLowerCase(Locale.ROOT);
                if (kind.startsWith("ip/")) {
                    clientBits = Math.min(clientBits, Integer.parseInt(kind.substring(3)));   // validated by part()
                }
            } catch (ConfigException unknown) {
                KeyResolver custom = named.get(part);
                if (custom == null) {
                    throw unknown;
                }
                parts.add(named(part, storing(custom)));   // printed by its name in the effective configuration
            }
        }
        return perClientFailures(parts.size() == 1 ? parts.get(0) : combine(parts), ips, clientBits);
    }

    /**
     * {@code resolver}, with the keys of requests it cannot key kept per client. When it throws
     * ({@link KeyResolver#keyOnFailure}), or a query parameter cannot be read ({@link QueryStrings#TOO_LONG},
     * {@link QueryStrings#MALFORMED}), the request counts under that marker joined with the client's address, such as
     * {@code #query-too-long|203.0.113.9}, not under one key for every client: one client that keeps sending such
     * requests exhausts only its own share. {@link #parse} applies it to every key it parses.
     *
     * <p>A {@code keyOnFailure} of {@code resolver}'s own (other than {@link KeyResolver#FAILED_KEY}) is kept. {@link #parse}
     * applies this to every key it parses, with the IPv6 grouping of the key's coarsest {@code ip/BITS} part.
     *
     * @param ips finds the client's address, as the {@code ip} key does (IPv6 grouped by its /64)
     */
    public static KeyResolver perClientFailures(KeyResolver resolver, ClientIpResolver ips) {
        return perClientFailures(resolver, ips, DEFAULT_IPV6_PREFIX);
    }

    private static KeyResolver perClientFailures(KeyResolver resolver, ClientIpResolver ips, int ipv6PrefixBits) {
        KeyResolver inner = resolver instanceof PerClientFailures p ? p.resolver() : storing(resolver);   // this client wins
        return new PerClientFailures(inner, ip(ips != null ? ips : ClientIpResolver.direct(), ipv6PrefixBits));
    }

    private record PerClientFailures(KeyResolver resolver, KeyResolver client) implements KeyResolver {
        @Override
        public String resolve(RequestView request) {
            String key = resolver.resolve(request);
            // the parser's own constants, by identity: a client's "#query-too-long" was hashed already
            return QueryStrings.unreadable(key) ? withClient(key, request) : key;
        }

        @Override
        public String keyOnFailure(RequestView request) {
            String own;
            try {
                own = resolver.keyOnFailure(request);
            } catch (RuntimeException e) {
                own = null;
            }
            return own != null && !own.equals(KeyResolver.FAILED_KEY) ? own : withClient(KeyResolver.FAILED_KEY, request);
        }

        private String withClient(String marker, RequestView request) {
            String client = client().resolve(request);
            return client == null ? marker : marker + "|" + escape(client);
        }

        @Override
        public String toString() {
            return resolver.toString();
        }
    }

    private static KeyResolver part(String parameter, String spec, String part, ClientIpResolver ips) {
        int colon = part.indexOf(':');
        String kind = (colon < 0 ? part : part.substring(0, colon)).toLowerCase(Locale.ROOT);
        String name = colon < 0 ? null : part.substring(colon + 1).trim();
        switch (kind) {
            case "header" -> {
                return header(require(parameter, spec, name, TOKEN, "a header name such as \"header:X-Api-Key\""));
            }
            case "attribute" -> {
                return attribute(require(parameter, spec, name, NAME, "an attribute name such as \"attribute:tenant\""));
            }
            case "query" -> {
                return query(require(parameter, spec, name, NAME, "a parameter name such as \"query:api_key\""));
            }
            default -> {
                if (name != null) {
                    throw new ConfigException(parameter, spec, SYNTAX);
                }
            }
        }
        if (kind.equals("ip") || kind.startsWith("ip/")) {
            return ip(ips, kind.equals("ip") ? DEFAULT_IPV6_PREFIX : prefix(parameter, spec, kind.substring(3)));
        }
        return switch (kind) {
            case "principal" -> principal();
            case "path" -> path();
            case "method" -> method();
            case "global" -> global();
            default -> throw new ConfigException(parameter, spec, SYNTAX);
        };
    }

    private static String require(String parameter, String spec, String name, Pattern pattern, String example) {
        if (name == null || !pattern.matcher(name).matches()) {
            throw new ConfigException(parameter, spec, "expected " + example);
        }
        return name;
    }

    private static int prefix(String parameter, String spec, String digits) {
        int bits = digits.matches("\\d{1,3}") ? Integer.parseInt(digits) : -1;
        if (bits < 1 || bits > 128) {
            throw new ConfigException(parameter, spec, "expected an IPv6 prefix length between 1 and 128, such as \"ip/64\"");
        }
        return bits;
    }

    /** The client IP; IPv6 addresses grouped by their /{@code ipv6PrefixBits} prefix (128: no grouping). */
    public static KeyResolver ip(ClientIpResolver ips, int ipv6PrefixBits) {
        String spec = ipv6PrefixBits == DEFAULT_IPV6_PREFIX ? "ip" : "ip/" + ipv6PrefixBits;
        return named(spec, request -> {
            String key = ips.resolve(request, ipv6PrefixBits);
            return key != null ? key : stored(request.remoteAddress());   // a peer that is no IP (a Unix socket)
        });
    }

    /** The client IP, IPv6 grouped by /{@value #DEFAULT_IPV6_PREFIX}. */
    public static KeyResolver ip(ClientIpResolver ips) {
        return ip(ips, DEFAULT_IPV6_PREFIX);
    }

    /** The first value of a request header, such as an API key. */
    public static KeyResolver header(String name) {
        return named("header:" + name, request -> stored(request.header(name)));
    }

    /** A request attribute set by an earlier filter (its {@code toString()}), such as a tenant. */
    public static KeyResolver attribute(String name) {
        return named("attribute:" + name, request -> {
            Object value = request.attribute(name);
            return value == null ? null : stored(value.toString());
        });
    }

    /** The first value of a query parameter. */
    public static KeyResolver query(String name) {
        return named("query:" + name, request -> {
            String value = request.queryParameter(name);
            // QueryStrings' own constants (the very instances) pass as they are; a client's "#..." is hashed
            return QueryStrings.unreadable(value) ? value : stored(value);
        });
    }

    /** The authenticated principal's name. */
    public static KeyResolver principal() {
        return named("principal", request -> stored(request.principal()));
    }

    /** The path inside the application, without trailing slashes ({@code /a/} counts as {@code /a}, as it is routed). */
    public static KeyResolver path() {
        return named("path", request -> stored(RequestMatcher.normalized(request.path())));
    }

    /** The HTTP method. */
    public static KeyResolver method() {
        return named("method", request -> stored(request.method()));
    }

    /** One key for every request: {@code global}. */
    public static KeyResolver global() {
        return named("global", request -> "global");
    }

    /**
     * Every part's value joined with {@code |}; missing when any part is missing. A query parameter that cannot be read
     * ({@link QueryStrings#TOO_LONG}, {@link QueryStrings#MALFORMED}) makes the whole key that marker, which
     * {@link #perClientFailures} keys per client.
     */
    public static KeyResolver combine(List<KeyResolver> parts) {
        List<KeyResolver> copy = List.copyOf(parts).stream().map(KeyResolvers::storing).toList();  // bounded parts
        StringBuilder spec = new StringBuilder();
        copy.forEach(p -> spec.append(spec.length() == 0 ? "" : "+").append(p));
        return named(spec.toString(), request -> {
            StringBuilder key = new StringBuilder();
            for (KeyResolver part : copy) {
                String value = part.resolve(request);
                if (value == null) {
                    return null;
                }
                if (QueryStrings.unreadable(value)) {
                    return value;       // the marker itself, which perClientFailures keys per client
                }
                if (key.length() > 0) {
                    key.append('|');
                }
                key.append(escape(value));
            }
            return key.toString();
        });
    }

    private static String escape(String value) {
        if (value.indexOf('|') < 0 && value.indexOf('%') < 0) {
            return value;
        }
        return value.replace("%", "%25").replace("|", "%7C");
    }

    /**
     * @param key a key as written in configuration (an allowlisted API key, say), parts of a combination joined with
     *     {@code |}
     * @return the forms a resolver may give that key, as one value and as the parts of a combination: trimmed, and
     *     hashed when longer than {@value #MAX_RAW_LENGTH} characters or starting with {@code #}, so that a long
     *     configured key matches the resolved one
     */
    public static Set<String> normalized(String key) {
        String whole = stored(key);
        String parts = normalizedParts(key);
        return whole == null || whole.equals(parts) ? Set.of(parts) : Set.of(whole, parts);
    }

    /** Each {@code |}-separated part of {@code key} as {@link #stored} gives it, escaped as in a combination. */
    private static String normalizedParts(String key) {
        StringBuilder out = new StringBuilder(key.length());
        int start = 0;
        for (int bar; (bar = key.indexOf('|', start)) >= 0; start = bar + 1) {
            String part = stored(key.substring(start, bar));
            out.append(part == null ? "" : escape(part)).append('|');
        }
        String last = stored(key.substring(start));
        return out.append(last == null ? "" : escape(last)).toString();
    }

    /**
     * The form a single-part key holds a value in (a header, a tier name, a key an admin looks up).
     *
     * @return the trimmed value, null when blank, a hash ({@code #...}) when longer than {@value #MAX_RAW_LENGTH}
     *     characters or starting with {@code #}: a client can send neither a stored hash (an allowlisted key's, say)
     *     nor one of Sluice's own keys ({@code #key-failed}, {@code #query-too-long}) as a key of its own
     */
    public static String stored(String value) {
        if (value == null) {
            return null;
        }
        String v = value.trim();
        if (v.isEmpty()) {
            return null;
        }
        return v.length() <= MAX_RAW_LENGTH && v.charAt(0) != '#' ? v : "#" + hash(v);
    }

    private static String hash(String value) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest).substring(0, 22);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /**
     * {@code resolver}, with every key it gives held in the form {@link #stored} gives: trimmed, null when blank, and
     * hashed when longer than {@value #MAX_RAW_LENGTH} characters or starting with {@code #}. {@link io.sluice.core.Rule} applies this
     * to every key resolver of the application's, so a resolver that returns text a client sent (a token's subject, a
     * header) can neither make memory grow with the client's text nor give one of Sluice's own keys
     * ({@code #key-failed|<client>}, an allowlisted key's hash) as a client's key. Sluice's own resolvers ({@link #parse}
     * and the factories of this class), whose keys are stored forms already, are returned as they are, as is a
     * resolver this method returned before. The resolver's {@link KeyResolver#keyOnFailure} is passed on unchanged.
     */
    public static KeyResolver storing(KeyResolver resolver) {
        if (resolver == null || resolver instanceof Named || resolver instanceof PerClientFailures
                || resolver instanceof Storing) {
            return resolver;
        }
        return new Storing(resolver);
    }

    /** An application's resolver whose keys are held in their {@link #stored} form. */
    private record Storing(KeyResolver resolver) implements KeyResolver {
        @Override
        public String resolve(RequestView request) {
            return stored(resolver.resolve(request));
        }

        @Override
        public String keyOnFailure(RequestView request) {
            return resolver.keyOnFailure(request);
        }

        @Override
        public String toString() {
            return resolver.toString();
        }
    }

    private static KeyResolver named(String spec, KeyResolver resolver) {
        return new Named(spec, resolver);
    }

    /**
     * A resolver that prints as its specification, for logs of the effective configuration: a built-in part, or an
     * application's resolver under the name a key specification gives it.
     */
    private record Named(String spec, KeyResolver resolver) implements KeyResolver {
        @Override
        public String resolve(RequestView request) {
            return resolver.resolve(request);
        }

        @Override
        public String keyOnFailure(RequestView request) {
            return resolver.keyOnFailure(request);
        }

        @Override
        public String toString() {
            return spec;
        }
    }
}
