package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.store.Check;
import io.sluice.core.store.StoreException;
import io.sluice.core.config.ConfigException;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Redis URLs and store settings as read at start-up, before any connection: every mistake named, no password shown. */
class RedisUrlTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "redis://user:secret@host:6379     | redis://user:***@host:6379",
            "redis://secretonly@host:6379      | redis://***@host:6379",
            "redis://:secret@host              | redis://:***@host",
            "redis://u:pa/ss@host:6379         | redis://u:***@host:6379",
            "redis://u:p@ss@host:6379          | redis://u:***@host:6379",
            "rediss://u:p:a:ss@host/2?time=redis | rediss://u:***@host/2?time=redis",
            "redis://host:6379                 | redis://host:6379"})
    void aPasswordIsHiddenWholeInEveryShape(String url, String shown) {
        assertThat(RedisStore.redact(url)).isEqualTo(shown);
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis://u:pa/ss@host:6379", "redis://secretonly@host:0", "redis://u:p@ss@host:99999",
            "redis-sentinel://u:pa%zzss@h1,h2/m", "redis-cluster://:pazz%@h1", "redis-cluster://u:pa%zzss@h1"})
    void anErrorNeverQuotesThePassword(String url) {
        assertThatThrownBy(() -> RedisStore.checkUrl("SLUICE_STORE (environment variable)", url))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("SLUICE_STORE (environment variable): ")
                .hasMessageNotContaining("pa/ss").hasMessageNotContaining("secretonly").hasMessageNotContaining("p@ss")
                .hasMessageNotContaining("zz");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "redis://localhost:0         | port between 1 and 65535",
            "redis://localhost:99999     | port between 1 and 65535",
            "redis://localhost:          | port between 1 and 65535",
            "redis://localhost:6379/-1   | database number",
            "redis://localhost:6379/x    | database number",
            "redis://localhost:6379#frag | no fragment",
            "redis://localhost:6379?time=application&time=redis | option \"time\" given twice",
            "redis://localhost:6379?tls=true | unknown option \"tls=true\"; the Redis URL takes",
            "redis://localhost:6379?time=app | expected \"?time=application\" or \"?time=redis\"",
            "redis://localhost:6379?timeout=0ms | between 1ms and 60s",
            "redis://localhost:6379?timeout=61s | between 1ms and 60s",
            "redis://localhost:6379?timeout=5m | between 1ms and 60s in ms or s",
            "redis://localhost:6379?timeout= | between 1ms and 60s",
            "redis://localhost:6379?timeout=1s&timeout=2s | option \"timeout\" given twice",
            "redis://localhost:6379?pool-size=0 | between 1 and 10000",
            "redis://localhost:6379?pool-size=10001 | between 1 and 10000",
            "redis://localhost:6379?pool-size=lots | between 1 and 10000",
            "redis://localhost:6379?prefix=a:b | \"?prefix=\" 1 to 32 letters",
            "redis://localhost:6379?hash-tag=yes | \"?hash-tag=true\" or",
            "redis-sentinel://10.0.0.5:26379 | expected the master's name after the sentinels",
            "redis-sentinel://10.0.0.5:26379/mymaster/2 | expected the master's name",
            "redis-sentinel://10.0.0.5:26379,/mymaster | host name or address",
            "redis-sentinel://h1, h2/mymaster | got entry \" h2\"",
            "redis-sentinel://10.0.0.5:0/mymaster | port between 1 and 65535",
            "redis-cluster://10.0.0.7:7000/2 | expected no path after the seed nodes",
            "rediss-cluster://10.0.0.7:7000 | TLS to Sentinel or Cluster cannot be set by a URL",
            "REDISS-SENTINEL://10.0.0.5:26379/mymaster | TLS to Sentinel or Cluster cannot be set by a URL",
            "redis://localhost:6379?Timeout=200ms | unknown option \"Timeout=200ms\"; did you mean \"timeout\"?",
            "redis://localhost:6379?poolSize=32 | did you mean \"pool-size\"?",
            "redis://localhost:6379?HASH_TAG=true | did you mean \"hash-tag\"?",
            "redis://:6379               | host name",
            "http://localhost:6379       | Redis URL"})
    void aBadUrlFailsAtStartUpNamingWhatIsWrong(String url, String expected) {
        assertThatThrownBy(() -> RedisStore.builder().url(url).build()).as("named by the builder's method")
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("url(...): ").hasMessageContaining(expected);
    }

    @Test
    void anOptionNameInAnotherCaseIsRefusedWithTheNameItMeant() {
        // schemes are case-insensitive (RFC 3986); option names are not, so a near miss is named rather than guessed
        assertThatThrownBy(() -> RedisStore.checkUrl("store (init-param)", "redis://localhost:6379?Timeout=200ms"))
                .isInstanceOf(ConfigException.class).hasMessage("store (init-param): unknown option \"Timeout=200ms\";"
                        + " did you mean \"timeout\"? (option names are lower case, words joined by '-'); the Redis URL"
                        + " takes \"time=application\" or \"time=redis\" (the default), \"timeout=<duration>\""
                        + " (default 50ms), \"pool-size=<connections>\" (default 16), \"prefix=<key prefix>\" (default"
                        + " sluice), \"hash-tag=true\" (default false), \"coalesce=false\" (default true) and"
                        + " \"raw-keys=true\" (default false), each at most once, such as"
                        + " \"redis://host:6379?timeout=200ms&pool-size=32\", got \"redis://localhost:6379?Timeout=200ms\"");
        assertThatThrownBy(() -> RedisStore.checkUrl("store (init-param)", "redis://localhost:6379?tls=true"))
                .as("no near name: no guess").hasMessageNotContaining("did you mean");
    }

    @ParameterizedTest
    @ValueSource(strings = {"rediss-sentinel://app:s3cret@10.0.0.5:26379,10.0.0.6:26379/mymaster",
            "rediss-cluster://app:s3cret@10.0.0.7:7000,[::1]:7001?timeout=200ms", "Rediss-Cluster://:s3cret@n1"})
    void tlsToSentinelOrClusterFromAUrlIsRefusedSayingWhatToDoInstead(String url) {
        assertThatThrownBy(() -> RedisStore.checkUrl("SLUICE_STORE (environment variable)", url))
                .isInstanceOf(ConfigException.class)
                .hasMessage("SLUICE_STORE (environment variable): TLS to Sentinel or Cluster cannot be set by a URL"
                        + " (there is no rediss-sentinel:// or rediss-cluster://); for Sentinel or Cluster over TLS, give"
                        + " the store a Jedis client configured for TLS (a RedisSentinelClient or RedisClusterClient"
                        + " built with DefaultJedisClientConfig.builder().ssl(true)): in code with"
                        + " RedisStore.builder().client(...), in the servlet or JAX-RS filter by a CDI producer of that"
                        + " client or of the Store. Without TLS, expected"
                        + " \"redis-sentinel://10.0.0.5:26379,10.0.0.6:26379/mymaster\" or"
                        + " \"redis-cluster://10.0.0.7:7000,10.0.0.8:7000\", got \"" + RedisStore.redact(url) + "\"")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void urlsThatAreFine() {
        assertThat(RedisUrl.parse("redis://my_redis:6380/3")).as("a Docker Compose service name")
                .extracting(RedisUrl::host, RedisUrl::port, RedisUrl::database)
                .containsExactly("my_redis", 6380, 3);
        assertThat(RedisUrl.parse("REDISS://cache")).as("schemes are case-insensitive")
                .extracting(RedisUrl::ssl, RedisUrl::port).containsExactly(true, 6379);
        assertThat(RedisUrl.parse("redis://:a+b%2Fc@h").password()).as("a '+' is a '+', %2F a '/'")
                .isEqualTo("a+b/c");
        assertThat(RedisUrl.parse("redis://[::1]:6379").host()).isEqualTo("::1");
        assertThat(RedisUrl.parse("redis://[::1]:6379")).as("as logs show it").hasToString("redis://[::1]:6379");
        assertThat(RedisUrl.parse("redis://h?time=application").options().applicationTime()).isTrue();
        assertThat(RedisUrl.parse("redis://h?timeout=200ms&pool-size=32&time=redis").options())
                .extracting(UrlOptions::timeout, UrlOptions::poolSize, UrlOptions::redisTime)
                .containsExactly(Duration.ofMillis(200), 32, true);
        assertThat(RedisUrl.parse("redis://h?timeout=2s")).as("as logs show it")
                .hasToString("redis://h:6379?timeout=2000ms");
        RedisUrl sentinel = RedisUrl.parse("redis-sentinel://:s3cret@10.0.0.5,[::1]:26380,my_sentinel:1/m-1");
        assertThat(sentinel).extracting(RedisUrl::master, RedisUrl::nodes, RedisUrl::password)
                .containsExactly("m-1", Set.of("10.0.0.5:26379", "[::1]:26380", "my_sentinel:1"), "s3cret");
        assertThat(sentinel).as("as logs show it")
                .hasToString("redis-sentinel://:***@10.0.0.5:26379,[::1]:26380,my_sentinel:1/m-1");
        RedisUrl cluster = RedisUrl.parse("redis-cluster://a:7000,b?hash-tag=true&prefix=orders");
        assertThat(cluster).extracting(RedisUrl::master, RedisUrl::nodes, u -> u.options().hashTag(),
                u -> u.options().prefix()).containsExactly(null, Set.of("a:7000", "b:6379"), true, "orders");
        assertThat(cluster).hasToString("redis-cluster://a:7000,b:6379?prefix=orders&hash-tag=true");
        assertThat(RedisStore.redact("redis-sentinel://u:pw@a,b/m")).isEqualTo("redis-sentinel://u:***@a,b/m");
    }

    @Test
    void theUrlsPrefixAndHashTagNameTheKeys() {
        try (RedisStore store = RedisStore.builder().url("redis://localhost:1?prefix=orders&raw-keys=true").build()) {
            assertThat(store.key("per-ip", "203.0.113.9")).isEqualTo("orders:per-ip:203.0.113.9");
        }
        try (RedisStore store = RedisStore.builder().url("redis://localhost:1?prefix=orders").build()) {
            assertThat(store.key("per-ip", "203.0.113.9")).as("a keyed hash by default")
                    .matches("orders:per-ip:#[A-Za-z0-9_-]{16}");
        }
        try (RedisStore store = RedisStore.builder().url("redis://localhost:1?prefix=orders&hash-tag=true&raw-keys=true")
                .build()) {
            assertThat(store.key("per-ip", "203.0.113.9")).isEqualTo("{orders}:per-ip:203.0.113.9");
        }
        assertThatThrownBy(() -> RedisStore.builder().url("redis://localhost:1?raw-keys=true").rawKeys(false).build())
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("url(...): option \"raw-keys=true\""
                        + " conflicts with rawKeys(false)");
        assertThatThrownBy(() -> RedisStore.builder().url("redis://localhost:1?prefix=orders").prefix("billing").build())
                .isInstanceOf(ConfigException.class).hasMessage("url(...): option \"prefix=orders\" conflicts with"
                        + " prefix(\"billing\") on the same builder; expected the setting in one of them (or the same"
                        + " value in both), got \"redis://localhost:1?prefix=orders\"");
        assertThatThrownBy(() -> RedisStore.builder().url("redis://localhost:1?hash-tag=false").hashTag(true).build())
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("url(...): option \"hash-tag=false\""
                        + " conflicts with hashTag(true) on the same builder;");
        assertThatThrownBy(() -> RedisStore.builder().url("redis://localhost:1?coalesce=false").coalesce(true).build())
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("url(...): option \"coalesce=false\""
                        + " conflicts with coalesce(true) on the same builder;");
        assertThatThrownBy(() -> RedisStore.checkUrl("store", "redis://localhost:1?coalesce=no"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("expected \"?coalesce=false\" or \"?coalesce=true\" (the default)");
        assertThat(RedisUrl.parse("redis://h?coalesce=false").options().coalesce()).isFalse();
        assertThat(RedisUrl.parse("redis://h").options().coalesce()).isNull();
        try (RedisStore store = RedisStore.builder().url("redis://localhost:1?coalesce=false").coalesce(false).build()) {
            assertThat(store.coalesced()).containsExactly(0, 0, 0);
        }
        assertThatThrownBy(() -> RedisStore.builder().url("redis://localhost:1").sentinelCredentials(null, "s").build())
                .isInstanceOf(ConfigException.class).hasMessageContaining("redis-sentinel:// URL");
    }

    @Test
    void theUrlsTimeoutAndPoolSizeConfigureTheStoreUnlessTheBuilderSaysOtherwise() {
        try (RedisStore store = RedisStore.builder().url("redis://localhost:1?timeout=250ms&pool-size=3").build()) {
            assertThat(store.timeout()).isEqualTo(Duration.ofMillis(250));
            assertThat(store.poolSize()).isEqualTo(3);
        }
        try (RedisStore store = RedisStore.builder().url("redis://localhost:1?timeout=250ms").timeout(Duration.ofMillis(250))
                .build()) {
            assertThat(store.timeout()).as("the same value twice is no conflict").isEqualTo(Duration.ofMillis(250));
        }
        assertThatThrownBy(() -> RedisStore.builder().url("redis://localhost:1?timeout=250ms")
                .timeout(Duration.ofSeconds(1)).build()).isInstanceOf(ConfigException.class)
                .hasMessage("url(...): option \"timeout=250ms\" conflicts with timeout(1000 ms) on the same builder;"
                        + " expected the setting in one of them (or the same value in both), got"
                        + " \"redis://localhost:1?timeout=250ms\"");
        assertThatThrownBy(() -> RedisStore.builder().url("redis://u:s3cret@localhost:1?pool-size=3").poolSize(4).build())
                .isInstanceOf(ConfigException.class).hasMessage("url(...): option \"pool-size=3\" conflicts with"
                        + " poolSize(4) on the same builder; expected the setting in one of them (or the same value in"
                        + " both), got \"redis://u:***@localhost:1?pool-size=3\"");
    }

    @Test
    void emptyOptionsAreSkippedLikeATrailingAmpersand() {
        assertThat(RedisUrl.parse("redis://h?").options().applicationTime()).isFalse();
        assertThat(RedisUrl.parse("redis://h?&time=application&&timeout=1s").options())
                .extracting(UrlOptions::applicationTime, UrlOptions::timeout)
                .containsExactly(true, Duration.ofSeconds(1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis-sentinel://u:k3y/s3cr@h1/m", "redis-cluster://u:k3y?s3cr@h1",
            "redis-cluster://k3y/s3cr@h1", "redis://k3y?s3cr@host", "redis://u:k3y/s3cr@host:6379"})
    void aPasswordWithAnUnencodedSlashOrQuestionMarkIsNotQuotedInPieces(String url) {
        // the '/' or '?' ends the authority early: the password's pieces must not come back as a host entry or option
        assertThatThrownBy(() -> RedisStore.checkUrl("SLUICE_STORE (environment variable)", url))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("percent-encoded")
                .hasMessageNotContaining("k3y").hasMessageNotContaining("s3cr");
    }

    @Test
    void buildCopiesEveryFieldOfTheBuilder() throws Exception {
        // a field added to the Builder but not to StoreOpening.copy would be lost by build(): each gets a value no default has
        try (redis.clients.jedis.RedisClient client = redis.clients.jedis.RedisClient.create("redis://127.0.0.1:1")) {
            RedisStore.Builder original = RedisStore.builder();
            java.util.List<java.lang.reflect.Field> fields = new java.util.ArrayList<>();
            for (java.lang.reflect.Field f : RedisStore.Builder.class.getDeclaredFields()) {
                if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                f.setAccessible(true);
                Class<?> t = f.getType();
                Object value = t == String.class ? "v-" + f.getName() : t == boolean.class ? Boolean.TRUE
                        : t == int.class ? (Object) 7 : t == Duration.class ? Duration.ofSeconds(7)
                        : t == Set.class ? Set.of(new redis.clients.jedis.HostAndPort("h-" + f.getName(), 7))
                        : t == redis.clients.jedis.UnifiedJedis.class ? client : null;
                assertThat(value).as("a value for field %s of type %s: teach this test one", f.getName(), t).isNotNull();
                f.set(original, value);
                fields.add(f);
            }
            RedisStore.Builder copy = StoreOpening.copy(original);
            for (java.lang.reflect.Field f : fields) {
                assertThat(f.get(copy)).as("field %s copied", f.getName()).isEqualTo(f.get(original));
            }
        }
    }

    @Test
    void aBuilderBuiltTwiceDoesNotKeepTheFirstUrlsOptions() {
        RedisStore.Builder b = RedisStore.builder().url("redis://localhost:1?time=application&prefix=first");
        b.build().close();
        try (RedisStore second = b.url("redis://localhost:1?time=redis&raw-keys=true").build()) {
            assertThat(second.key("r", "k")).as("the first URL's prefix is not the builder's").isEqualTo("sluice:r:k");
        }
    }

    @Test
    void applicationTimeFalseAndTimeApplicationOnTheUrlConflict() {
        assertThatThrownBy(() -> RedisStore.builder().url("redis://localhost:1?time=application").applicationTime(false)
                .build()).isInstanceOf(ConfigException.class).hasMessageStartingWith("url(...): option"
                        + " \"time=application\" conflicts with applicationTime(false) on the same builder;");
        RedisStore.builder().url("redis://localhost:1?time=application").applicationTime(true).build().close();
    }

    @Test
    void sentinelsThatCannotBeReachedAreReportedOnTheFirstCallAsSuchThenAsAPossiblePasswordOfTheirOwn()
            throws Exception {
        // Jedis says "All sentinels down" whether nothing listens or the sentinels refused to authenticate
        int port = io.sluice.core.testing.RedisProcess.freePort();      // nothing listens there
        String url = "redis-sentinel://127.0.0.1:" + port + "/mymaster?timeout=500ms";
        String said = "All sentinels down, cannot determine where mymaster is running. Are the sentinels running and"
                + " reachable at 127.0.0.1:" + port + "? If they are and require a password of their own (requirepass in"
                + " sentinel.conf), give it with sentinelCredentials(user, password) on RedisStore.builder(), in a Store"
                + " or client the application produces; a URL has no place for it.";
        try (io.sluice.core.testing.LogCapture log = new io.sluice.core.testing.LogCapture(RedisStore.class.getName());
                RedisStore store = RedisStore.builder().url(url).build()) {
            assertThat(log.warnings()).as("building it connects to nothing").isEmpty();
            java.util.List<Check> checks = java.util.List.of(Check.of("r", "k",
                    io.sluice.core.policy.Policy.parse("1/s"), 1));
            for (int call = 0; call < 2; call++) {
                assertThatThrownBy(() -> store.evaluate(checks, io.sluice.core.testing.ManualTimeSource.START_MICROS))
                        .isInstanceOf(StoreException.class)
                        .hasMessage("cannot reach the Redis store (" + url + "): " + said);
            }
            assertThat(log.warnings()).as("the first failure, once").containsExactly("the Redis store (" + url + ")"
                    + " cannot be reached; requests fall back as their rules' on-store-failure says until it can: "
                    + said);
        }
    }

    @Test
    void aSentinelOrClusterUrlsStoreDescribesItselfAsItsUrl() {
        try (RedisStore s = RedisStore.builder().url("redis-cluster://app:s3cret@127.0.0.1:1,[::1]:2?timeout=20ms")
                .build()) {
            assertThat(s).hasToString("redis-cluster://app:***@127.0.0.1:1,[::1]:2?timeout=20ms");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"PT0.0005S", "PT0S", "PT-1S", "PT60.001S"})
    void aTimeoutOutside1MsTo60SIsRefused(String duration) {
        assertThatThrownBy(() -> RedisStore.builder().timeout(Duration.parse(duration)))
                .isInstanceOf(ConfigException.class).hasMessage("timeout(...): expected a duration between 1 ms and"
                        + " 60 s, such as timeout(Duration.ofMillis(200)), got \"" + Duration.parse(duration) + "\"");
        assertThatThrownBy(() -> RedisStore.builder().timeout(Duration.ofSeconds(Long.MAX_VALUE)))
                .as("not an ArithmeticException").isInstanceOf(ConfigException.class);
        assertThat(RedisStore.builder().timeout(Duration.ofMillis(1))).isNotNull();
    }

    @Test
    void aBadPrefixOrPoolSizeIsNamedByTheBuildersMethod() {
        assertThatThrownBy(() -> RedisStore.builder().prefix("a:b")).isInstanceOf(ConfigException.class)
                .hasMessage("prefix(...): expected 1 to 32 letters, digits, '.', '_' or '-', such as prefix(\"orders\"),"
                        + " got \"a:b\"");
        assertThatThrownBy(() -> RedisStore.builder().prefix(null)).isInstanceOf(ConfigException.class)
                .hasMessageEndingWith("got nothing");
        for (int size : new int[] {0, -1, 10_001}) {
            assertThatThrownBy(() -> RedisStore.builder().poolSize(size)).isInstanceOf(ConfigException.class)
                    .hasMessage("poolSize(...): expected a whole number of connections between 1 and 10000, such as"
                            + " poolSize(32), got \"" + size + "\"");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {":6379", "host:0", "host:70000", "host:-1", "host", "host:1:2", "host:x"})
    void aClusterOrSentinelAddressNeedsAHostAndAPort(String address) {
        assertThatThrownBy(() -> RedisStore.builder().cluster(Set.of(address)))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("cluster: expected host:port");
        assertThatThrownBy(() -> RedisStore.builder().sentinel("mymaster", Set.of(address)))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("sentinels: expected host:port");
    }

    @Test
    void sentinelNeedsAMasterNameAndCredentialsAreNotForAUrl() {
        for (String master : new String[] {null, "", " "}) {
            assertThatThrownBy(() -> RedisStore.builder().sentinel(master, Set.of("10.0.0.5:26379")))
                    .isInstanceOf(ConfigException.class).hasMessageStartingWith("sentinel master: expected the name");
        }
        assertThatThrownBy(() -> RedisStore.builder().url("redis://localhost:6379").credentials("u", "p").build())
                .isInstanceOf(ConfigException.class).hasMessageContaining("a Redis URL carries its own");
        assertThat(RedisStore.builder().cluster(Set.of("my_redis:7000", "[::1]:7001"))).isNotNull();
    }

    @Test
    void twoNamesAndKeysNeverShareARedisKey() {
        // a standalone store connects on first use: none here
        try (RedisStore store = RedisStore.builder().url("redis://localhost:1").rawKeys(true).build()) {
            assertThat(store.key("a:b", "c")).as("a ':' in a programmatic limit's name").isNotEqualTo(store.key("a", "b:c"));
            assertThat(store.key("per-ip", "203.0.113.9")).as("a rule's name as it is")
                    .isEqualTo("sluice:per-ip:203.0.113.9");
            assertThat(store.key("tenant " + "x".repeat(1000), "k")).as("a long or unsafe name hashed")
                    .matches("sluice:#[A-Za-z0-9_-]{22}:k");
            assertThat(store.key("{t}", "k")).doesNotContain("{");
        }
    }

    @Test
    void aUserWithoutAPasswordIsRefusedNotIgnored() {
        assertThatThrownBy(() -> RedisStore.builder().credentials("app", null))
                .isInstanceOf(ConfigException.class).hasMessage("credentials: expected a password for the user, got \"app\"");
        assertThatThrownBy(() -> RedisStore.builder().credentials(" ", "secret"))
                .isInstanceOf(ConfigException.class).hasMessageNotContaining("secret");
        assertThat(RedisStore.builder().credentials(null, "secret")).isNotNull();
        assertThatThrownBy(() -> RedisStore.builder().sentinelCredentials("app", null)).isInstanceOf(ConfigException.class)
                .hasMessage("sentinelCredentials: expected a password for the user, got \"app\"");
    }

    @Test
    void sentinelCredentialsWithoutSentinelsAreRefusedNotIgnored() {
        assertThatThrownBy(() -> RedisStore.builder().url("redis://localhost:1").sentinelCredentials(null, "s").build())
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("sentinelCredentials are for the sentinels");
        assertThatThrownBy(() -> RedisStore.builder().cluster(java.util.Set.of("localhost:1"))
                .sentinelCredentials(null, "s").build()).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("sentinelCredentials are for the sentinels");
    }

    @Test
    void aUrlsTimeOptionIsNotOverriddenUnsaid() {
        assertThatThrownBy(() -> RedisStore.builder().url("redis://localhost:1?time=redis").applicationTime(true).build())
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("url(...): option \"time=redis\""
                        + " conflicts with applicationTime(true) on the same builder;");
        RedisStore.builder().url("redis://localhost:1?time=application").applicationTime(true).build().close();
    }

    @Test
    void settingsAnApplicationsClientIgnoresAreRefused() {
        try (redis.clients.jedis.RedisClient own = redis.clients.jedis.RedisClient.builder().hostAndPort("localhost", 1)
                .build()) {
            assertThatThrownBy(() -> RedisStore.builder().client(own).timeout(Duration.ofSeconds(1)).build())
                    .isInstanceOf(ConfigException.class).hasMessage("timeout(...): applies to the connections the"
                            + " store opens, not to an application's client(...), which has timeouts of its own (set on"
                            + " the client, such as DefaultJedisClientConfig.builder().socketTimeoutMillis(200));"
                            + " expected no timeout(...) with client(...), got \"PT1S\"");
            assertThatThrownBy(() -> RedisStore.builder().client(own).poolSize(4).build())
                    .isInstanceOf(ConfigException.class).hasMessage("poolSize(...): applies to the connections the"
                            + " store opens, not to an application's client(...), which has a pool of its own (set on the"
                            + " client, such as a ConnectionPoolConfig with setMaxTotal(32)); expected no poolSize(...)"
                            + " with client(...), got \"4\"");
            RedisStore.builder().client(own).prefix("app").hashTag(true).build().close();
        }
    }
}
