package io.sluice.core.store;

import io.sluice.core.config.ConfigException;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Opens a {@link Store} from a URL such as {@code redis://host:6379}: how configuration written as text (a web.xml
 * parameter, an environment variable) reaches a store that lives in another module. Implementations are found with
 * {@link ServiceLoader} ({@code META-INF/services/io.sluice.core.store.StoreProvider}), so a store is used when its jar
 * is on the class path; the Redis store ({@code io.sluice:sluice-redis}) registers one for {@code redis://},
 * {@code rediss://}, {@code redis-sentinel://} and {@code redis-cluster://}.
 */
public interface StoreProvider {

    /** @return whether this provider opens URLs of this scheme (lower case, without {@code ://}) */
    boolean accepts(String scheme);

    /**
     * Checks a URL as {@link #open} will read it, without connecting.
     *
     * @param parameter the name errors give (a parameter and where it came from)
     * @throws ConfigException naming {@code parameter} and quoting the URL without its secrets
     */
    void check(String parameter, String url);

    /** @return a store for the URL; the caller closes it */
    Store open(String url);

    /** @return the URL without its secrets, for logs and messages; by default {@link #redactPassword} */
    default String redact(String url) {
        return redactPassword(url);
    }

    /**
     * @return {@code url} without its password, for logs and messages: {@code redis://user:secret@host} gives
     *     {@code redis://user:***@host}, {@code redis://secret@host} gives {@code redis://***@host}. The user part
     *     ends at the last {@code @}, so a password holding {@code /}, {@code :} or {@code @} is hidden whole.
     */
    static String redactPassword(String url) {
        if (url == null) {
            return null;
        }
        int from = url.indexOf("://");
        from = from < 0 ? 0 : from + 3;
        int at = url.lastIndexOf('@');
        if (at < from) {
            return url;
        }
        String userInfo = url.substring(from, at);
        int colon = userInfo.indexOf(':');
        return url.substring(0, from) + (colon < 0 ? "***" : userInfo.substring(0, colon) + ":***") + url.substring(at);
    }

    /** @return the scheme of {@code url} in lower case, or empty when it has none */
    static Optional<String> scheme(String url) {
        int end = url == null ? -1 : url.indexOf("://");
        return end > 0 ? Optional.of(url.substring(0, end).toLowerCase(Locale.ROOT)) : Optional.empty();
    }

    /** @return the provider on the class path (of this interface's class loader) that accepts {@code url}'s scheme */
    static Optional<StoreProvider> find(String url) {
        Optional<String> scheme = scheme(url);
        if (scheme.isEmpty()) {
            return Optional.empty();
        }
        for (StoreProvider p : ServiceLoader.load(StoreProvider.class, StoreProvider.class.getClassLoader())) {
            if (p.accepts(scheme.get())) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
