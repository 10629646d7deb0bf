package io.sluice.redis;

import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.PolicyParser;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The options of a Redis URL ({@code ?time=application&timeout=200ms...}), each null, 0 or false when not given:
 * {@code applicationTime} when it says {@code time=application}, {@code redisTime} when it says {@code time=redis}.
 */
record UrlOptions(boolean applicationTime, boolean redisTime, Duration timeout, int poolSize, String prefix,
        Boolean hashTag, Boolean coalesce, Boolean rawKeys) {

    private static final Set<String> OPTIONS = Set.of("time", "timeout", "pool-size", "prefix", "hash-tag",
            "coalesce", "raw-keys");
    private static final String OPTIONS_HELP = "the Redis URL takes \"time=application\" or \"time=redis\" (the"
            + " default), \"timeout=<duration>\" (default 50ms), \"pool-size=<connections>\" (default 16),"
            + " \"prefix=<key prefix>\" (default sluice), \"hash-tag=true\" (default false), \"coalesce=false\""
            + " (default true) and \"raw-keys=true\" (default false), each at most once,"
            + " such as \"redis://host:6379?timeout=200ms&pool-size=32\"";

    /**
     * @param parameter the name errors give
     * @param shown the URL as errors quote it, without its password
     * @param query the URL's raw query, null when it has none
     */
    static UrlOptions parse(String parameter, String shown, String query) {
        Reader reader = new Reader(parameter, shown);
        if (query != null) {
            for (String option : query.split("&")) {
                if (!option.isEmpty()) {        // "?", "&&" or a trailing '&': nothing said
                    reader.read(option);
                }
            }
        }
        return reader.options();
    }

    /** @return the options given, as a query ("" when none), as logs show the URL */
    String query() {
        List<String> given = new ArrayList<>();
        if (applicationTime || redisTime) {
            given.add(applicationTime ? "time=application" : "time=redis");
        }
        if (timeout != null) {
            given.add("timeout=" + timeout.toMillis() + "ms");
        }
        if (poolSize != 0) {
            given.add("pool-size=" + poolSize);
        }
        if (prefix != null) {
            given.add("prefix=" + prefix);
        }
        if (hashTag != null) {
            given.add("hash-tag=" + hashTag);
        }
        if (coalesce != null) {
            given.add("coalesce=" + coalesce);
        }
        if (rawKeys != null) {
            given.add("raw-keys=" + rawKeys);
        }
        return given.isEmpty() ? "" : "?" + String.join("&", given);
    }

    /** The options read so far, in the order the URL gives them, so that the first mistake is the one reported. */
    private static final class Reader {
        private final String parameter;
        private final String shown;
        private final Set<String> seen = new HashSet<>();
        private Boolean applicationTime;
        private Duration timeout;
        private int poolSize;
        private String prefix;
        private Boolean hashTag;
        private Boolean coalesce;
        private Boolean rawKeys;

        Reader(String parameter, String shown) {
            this.parameter = parameter;
            this.shown = shown;
        }

        void read(String option) {
            int eq = option.indexOf('=');
            String name = eq < 0 ? option : option.substring(0, eq);
            String value = eq < 0 ? "" : option.substring(eq + 1);
            if (!OPTIONS.contains(name)) {
                String meant = meant(name);
                throw new ConfigException(parameter, shown, "unknown option \"" + bounded(option) + "\"; "
                        + (meant == null ? "" : "did you mean \"" + meant + "\"? (option names are lower case,"
                        + " words joined by '-'); ") + OPTIONS_HELP);
            }
            if (!seen.add(name)) {
                throw new ConfigException(parameter, shown, "option \"" + name + "\" given twice; " + OPTIONS_HELP);
            }
            switch (name) {
                case "time" -> applicationTime = time(value);
                case "timeout" -> timeout = timeout(value);
                case "prefix" -> prefix = prefix(value);
                case "hash-tag" -> hashTag = flag("hash-tag", value, "false");
                case "coalesce" -> coalesce = flag("coalesce", value, "true");
                case "raw-keys" -> rawKeys = flag("raw-keys", value, "false");
                default -> poolSize = poolSize(value);
            }
        }

        UrlOptions options() {
            return new UrlOptions(Boolean.TRUE.equals(applicationTime), Boolean.FALSE.equals(applicationTime), timeout,
                    poolSize, prefix, hashTag, coalesce, rawKeys);
        }

        private boolean time(String value) {
            if (!value.equals("application") && !value.equals("redis")) {
                throw new ConfigException(parameter, shown, "expected \"?time=application\" or \"?time=redis\" (the"
                        + " default)");
            }
            return value.equals("application");
        }

        private Duration timeout(String value) {
            Duration d = null;
            if (value.matches("\\d{1,6}(ms|s)")) {
                d = PolicyParser.parseDuration(parameter, value);
            }
            if (d == null || d.compareTo(Duration.ofMillis(1)) < 0 || d.compareTo(Duration.ofSeconds(60)) > 0) {
                throw new ConfigException(parameter, shown, "expected \"?timeout=\" a duration between 1ms and 60s in ms"
                        + " or s, such as \"?timeout=200ms\"");
            }
            return d;
        }

        private String prefix(String value) {
            if (!RedisKeys.PREFIX.matcher(value).matches()) {
                throw new ConfigException(parameter, shown, "expected \"?prefix=\" 1 to 32 letters, digits, '.', '_'"
                        + " or '-', such as \"?prefix=orders\"");
            }
            return value;
        }

        private boolean flag(String name, String value, String byDefault) {
            if (!value.equals("true") && !value.equals("false")) {
                String other = byDefault.equals("true") ? "false" : "true";
                throw new ConfigException(parameter, shown, "expected \"?" + name + "=" + other + "\" or \"?" + name + "="
                        + byDefault + "\" (the default)");
            }
            return value.equals("true");
        }

        private int poolSize(String value) {
            int size = value.matches("\\d{1,5}") ? Integer.parseInt(value) : 0;
            if (size < 1 || size > 10_000) {
                throw new ConfigException(parameter, shown, "expected \"?pool-size=\" a whole number of connections"
                        + " between 1 and 10000, such as \"?pool-size=32\"");
            }
            return size;
        }
    }

    /**
     * @return the option {@code name} was meant to be when it differs only in case, {@code '-'} or {@code '_'}
     *     ({@code Timeout}, {@code poolSize}, {@code hash_tag}); null otherwise
     */
    private static String meant(String name) {
        String folded = name.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
        for (String option : OPTIONS) {
            if (option.replace("-", "").equals(folded)) {
                return option;
            }
        }
        return null;
    }

    private static String bounded(String option) {
        return option.length() <= 40 ? option : option.substring(0, 40) + "...";
    }
}
