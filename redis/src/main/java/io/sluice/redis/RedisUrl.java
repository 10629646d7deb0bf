package io.sluice.redis;

import io.sluice.core.config.ConfigException;
import io.sluice.core.store.StoreProvider;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import redis.clients.jedis.HostAndPort;

/**
 * A parsed Redis URL. A {@code redis-sentinel://} URL has the master's name and the sentinels' {@code host:port} as
 * {@code nodes}; a {@code redis-cluster://} URL the seed nodes and no master; a standalone one ({@code redis://},
 * {@code rediss://}) a host and port and no nodes. Its options ({@code ?timeout=200ms...}) are {@link UrlOptions}.
 * {@link #toString()} is the URL as logs and messages show it: the password hidden, the defaults written out.
 */
record RedisUrl(String host, int port, String user, String password, int database, boolean ssl, String master,
        Set<String> nodes, UrlOptions options) {

    /** How errors name a URL given to {@link RedisStore.Builder#url}: the method the application called. */
    static final String URL_METHOD = "url(...)";

    /** A host name or IPv4 address; underscores allowed (Docker Compose service names). */
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9_]([A-Za-z0-9_.-]{0,252})|\\[[0-9A-Fa-f:.]+\\]");

    /** For {@code rediss-sentinel://} and {@code rediss-cluster://}, which Jedis's URL forms do not have. */
    private static final String NO_TLS_URL = "TLS to Sentinel or Cluster cannot be set by a URL (there is no"
            + " rediss-sentinel:// or rediss-cluster://); for Sentinel or Cluster over TLS, give the store a Jedis"
            + " client configured for TLS (a RedisSentinelClient or RedisClusterClient built with"
            + " DefaultJedisClientConfig.builder().ssl(true)): in code with RedisStore.builder().client(...), in the"
            + " servlet or JAX-RS filter by a CDI producer of that client or of the Store. Without TLS, expected"
            + " \"redis-sentinel://10.0.0.5:26379,10.0.0.6:26379/mymaster\" or"
            + " \"redis-cluster://10.0.0.7:7000,10.0.0.8:7000\"";
    private static final String EXAMPLE = "expected a Redis URL such as \"redis://localhost:6379\","
            + " \"rediss://user:secret@redis.internal:6380/2\", \"redis-sentinel://10.0.0.5:26379,10.0.0.6:26379/mymaster\""
            + " or \"redis-cluster://10.0.0.7:7000,10.0.0.8:7000\"";
    /** A Sentinel master's name. */
    private static final Pattern MASTER = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /** One address of a URL: a host name, IPv4 or IPv6 address (without brackets), and its port. */
    private record HostPort(String host, int port) {}

    /** A URL given to {@link RedisStore.Builder#url}: errors name {@value #URL_METHOD}. */
    static RedisUrl parse(String url) {
        return parse(URL_METHOD, url);
    }

    /**
     * @param parameter the name errors give, such as {@code SLUICE_STORE (environment variable)}
     * @throws ConfigException naming {@code parameter} and quoting the URL without its password
     */
    static RedisUrl parse(String parameter, String url) {
        String shown = StoreProvider.redactPassword(url);
        String text = url == null ? "" : url.trim();
        int slashes = text.indexOf("://");
        String scheme = slashes > 0 ? text.substring(0, slashes).toLowerCase(Locale.ROOT) : "";
        int end = slashes + 3;          // where the authority ends
        while (slashes > 0 && end < text.length() && "/?#".indexOf(text.charAt(end)) < 0) {
            end++;
        }
        if (slashes > 0 && scheme.matches("rediss-(sentinel|cluster)")) {
            throw new ConfigException(parameter, shown, NO_TLS_URL);
        }
        if (slashes > 0 && text.indexOf('@', end) >= 0) {
            // a '/', '?' or '#' in the password ended the authority early: what follows it, part of the password,
            // would be read (and quoted) as a host, a path or an option. No '@' belongs after the authority.
            throw new ConfigException(parameter, shown, "expected '/', '?', '#' and '@' in the user or password"
                    + " percent-encoded (\"%2F\", \"%3F\", \"%23\", \"%40\"); " + EXAMPLE);
        }
        String hostList = null;
        if (slashes > 0 && scheme.matches("redis-(sentinel|cluster)")) {
            // java.net.URI takes one host: the list ([IPv6] among them) is read by hand, the rest by URI
            hostList = text.substring(slashes + 3, end);
            text = text.substring(0, slashes + 3) + "h" + text.substring(end);
        }
        try {
            return read(parameter, shown, new URI(text), hostList);
        } catch (URISyntaxException e) {
            throw new ConfigException(parameter, shown, EXAMPLE + " (a password's reserved characters, such as"
                    + " '/', '@' or '%', percent-encoded)");
        }
    }

    /** @param hostList a Sentinel or Cluster URL's list of hosts, which {@code uri} holds as one placeholder host */
    private static RedisUrl read(String parameter, String shown, URI uri, String hostList) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        boolean ssl = scheme.equals("rediss");
        boolean sentinel = scheme.equals("redis-sentinel");
        boolean cluster = scheme.equals("redis-cluster");
        if (!ssl && !sentinel && !cluster && !scheme.equals("redis") || uri.getRawAuthority() == null) {
            throw new ConfigException(parameter, shown, EXAMPLE);
        }
        if (uri.getRawFragment() != null) {
            throw new ConfigException(parameter, shown, "expected no fragment ('#...') in the Redis URL; " + EXAMPLE);
        }
        // the authority by hand: java.net.URI leaves the host null for names such as "my_redis" (Docker Compose)
        // and for lists of hosts
        String authority = hostList != null ? hostList : uri.getRawAuthority();
        int at = authority.lastIndexOf('@');
        String hosts = authority.substring(at + 1);
        Set<String> nodes = new LinkedHashSet<>();
        HostPort standalone = new HostPort(null, 0);
        if (sentinel || cluster) {
            nodes = nodes(parameter, shown, hosts, sentinel ? 26379 : 6379);
        } else {
            standalone = hostAndPort(parameter, shown, hosts, 6379, false);
        }
        String user = null;
        String password = null;
        if (at >= 0) {
            String[] parts = authority.substring(0, at).split(":", 2);
            user = parts.length == 2 && !parts[0].isEmpty() ? decode(parameter, shown, parts[0]) : null;
            password = decode(parameter, shown, parts.length == 2 ? parts[1] : parts[0]);
        }
        String master = sentinel ? master(parameter, shown, uri.getPath()) : null;
        int database = sentinel ? 0 : database(parameter, shown, uri.getPath(), cluster);
        return new RedisUrl(standalone.host(), standalone.port(), user, password, database, ssl, master,
                Collections.unmodifiableSet(nodes), UrlOptions.parse(parameter, shown, uri.getRawQuery()));
    }

    /** @return a Sentinel or Cluster URL's hosts as {@code host:port} or {@code [IPv6]:port}, the default port added */
    private static Set<String> nodes(String parameter, String shown, String hosts, int defaultPort) {
        Set<String> nodes = new LinkedHashSet<>();
        for (String one : hosts.split(",", -1)) {
            HostPort hp = hostAndPort(parameter, shown, one, defaultPort, true);
            nodes.add((hp.host().indexOf(':') >= 0 ? "[" + hp.host() + "]" : hp.host()) + ":" + hp.port());
        }
        return nodes;
    }

    /** @return the address in {@code text}: a host name, IPv4 or {@code [IPv6]} address and an optional port */
    private static HostPort hostAndPort(String parameter, String shown, String text, int defaultPort, boolean list) {
        String host;
        String portText;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            host = close < 0 ? "" : text.substring(1, close);
            portText = close < 0 ? "" : text.substring(close + 1);
        } else {
            int colon = text.indexOf(':');
            host = colon < 0 ? text : text.substring(0, colon);
            portText = colon < 0 ? "" : text.substring(colon);
        }
        if (host.isEmpty() || !(text.startsWith("[") ? host.matches("[0-9A-Fa-f:.]+") : HOST.matcher(host).matches())) {
            throw new ConfigException(parameter, shown, list ? "expected a host name or address with an optional"
                    + " port in every entry of the list, separated by ',' without spaces, got entry \"" + text
                    + "\"; " + EXAMPLE : "expected a host name or address after \"//\"; " + EXAMPLE);
        }
        int port = defaultPort;
        if (!portText.isEmpty()) {
            port = portText.matches(":\\d{1,5}") ? Integer.parseInt(portText.substring(1)) : 0;
            if (port < 1 || port > 65_535) {
                throw new ConfigException(parameter, shown, "expected a port between 1 and 65535 after the host,"
                        + " such as " + (list ? "\"redis-cluster://10.0.0.7:7000,10.0.0.8:7000\", got entry \""
                        + text + "\"" : "\"redis://localhost:6379\""));
            }
        }
        return new HostPort(host, port);
    }

    /** @return a Sentinel URL's master: its path, without the leading '/' */
    private static String master(String parameter, String shown, String path) {
        String master = path == null || path.length() < 2 ? "" : path.substring(1);
        if (!MASTER.matcher(master).matches()) {
            throw new ConfigException(parameter, shown, "expected the master's name after the sentinels, such"
                    + " as \"redis-sentinel://10.0.0.5:26379,10.0.0.6:26379/mymaster\" (letters, digits, '.',"
                    + " '_' or '-'; no database: the master's is 0)");
        }
        return master;
    }

    /** @return a standalone URL's database, its path; 0 when it has none, and always for a cluster */
    private static int database(String parameter, String shown, String path, boolean cluster) {
        if (cluster) {
            if (path != null && path.length() > 1) {
                throw new ConfigException(parameter, shown, "expected no path after the seed nodes of a cluster"
                        + " (a cluster has database 0 only), such as \"redis-cluster://10.0.0.7:7000,10.0.0.8:7000\"");
            }
            return 0;
        }
        if (path == null || path.length() <= 1) {
            return 0;
        }
        int database = path.substring(1).matches("\\d{1,9}") ? Integer.parseInt(path.substring(1)) : -1;
        if (database < 0) {
            throw new ConfigException(parameter, shown, "expected a database number (0 or more) after the"
                    + " address, such as \"redis://localhost:6379/2\"");
        }
        return database;
    }

    /** Percent-decoding only: in a URL a '+' is itself, not a space as in a form. */
    private static String decode(String parameter, String shown, String s) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            // never e's message: it quotes the characters after the '%', part of the password
            throw new ConfigException(parameter, shown, "expected '%' followed by two hex digits in the user or"
                    + " password (a '%' itself is \"%25\"); " + EXAMPLE);
        }
    }

    /**
     * The addresses given to {@link RedisStore.Builder#sentinel} or {@link RedisStore.Builder#cluster}, or read from a
     * URL's list of hosts.
     *
     * @param parameter the name errors give
     */
    static Set<HostAndPort> addresses(String parameter, Set<String> values) {
        if (values == null || values.isEmpty()) {
            throw new ConfigException(parameter, null, "expected host:port addresses such as \"10.0.0.5:26379\"");
        }
        Set<HostAndPort> out = new LinkedHashSet<>();
        for (String v : values) {
            int colon = v == null ? -1 : v.lastIndexOf(':');
            String host = colon > 0 ? v.substring(0, colon).trim() : "";
            int port = colon > 0 && v.substring(colon + 1).matches("\\d{1,5}") ? Integer.parseInt(v.substring(colon + 1)) : 0;
            if (!HOST.matcher(host).matches() || port < 1 || port > 65_535) {
                throw new ConfigException(parameter, v, "expected host:port with a port between 1 and 65535, such as"
                        + " \"10.0.0.5:26379\"");
            }
            out.add(new HostAndPort(host.startsWith("[") ? host.substring(1, host.length() - 1) : host, port));
        }
        return out;
    }

    /** Whether this is a {@code redis://} or {@code rediss://} URL: one server, no Sentinel or Cluster. */
    boolean standalone() {
        return nodes.isEmpty();
    }

    @Override
    public String toString() {
        String credentials = user != null ? user + ":***@" : password != null ? ":***@" : "";
        if (!nodes.isEmpty()) {
            return (master != null ? "redis-sentinel://" : "redis-cluster://") + credentials + String.join(",", nodes)
                    + (master != null ? "/" + master : "") + options.query();
        }
        return (ssl ? "rediss://" : "redis://") + credentials + (host.indexOf(':') >= 0 ? "[" + host + "]" : host)
                + ":" + port + (database != 0 ? "/" + database : "") + options.query();
    }
}
