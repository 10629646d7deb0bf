package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.Engine;
import io.sluice.core.Operations;
import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.key.KeyResolvers;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.testing.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * No client identifier in clear at rest: after requests keyed by IP, API key and user, and an operator's overrides and
 * resets recorded in the audit trail, Redis's own dump file (written by {@code SAVE}, uncompressed) holds none of them,
 * unless the store keeps raw keys; an admin reset still finds a key by its raw value.
 */
class KeysAtRestIT {

    private static final List<String> CLIENTS = List.of("203.0.113.77", "2001:db8::7", "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
            "alice@example.com");

    private RedisProcess redis;
    private RedisClient admin;

    @BeforeEach
    void start() throws Exception {
        redis = RedisProcess.start();
        admin = RedisClient.create(redis.url());
    }

    @AfterEach
    void stop() throws Exception {
        admin.close();
        redis.close();
    }

    private static final Rule PER_IP = Rule.builder("per-ip").policy(Policy.parse("5/1m"))
            .key(KeyResolvers.ip(ClientIpResolver.direct(), 128)).build();
    private static final Rule PER_API_KEY = Rule.builder("per-api-key").policy(Policy.parse("5/1m"))
            .key(KeyResolvers.header("X-Api-Key")).build();
    private static final Rule PER_USER = Rule.builder("per-user").policy(Policy.parse("5/1m"))
            .key(RequestView::principal).build();

    private Engine engine(RedisStore store) {
        return Engine.builder().store(store).rule(PER_IP).rule(PER_API_KEY).rule(PER_USER).build();
    }

    private void traffic(Engine engine) {
        RequestView v4 = RequestView.builder("GET", "/").remoteAddress(CLIENTS.get(0)).header("X-Api-Key", CLIENTS.get(2))
                .principal(CLIENTS.get(3)).build();
        RequestView v6 = RequestView.builder("GET", "/").remoteAddress(CLIENTS.get(1)).build();
        for (int i = 0; i < 3; i++) {
            assertThat(engine.check(v4).allowed()).isTrue();
            assertThat(engine.check(v6).allowed()).isTrue();
        }
    }

    /** @return Redis's dump file after a SAVE, as text; uncompressed, so that nothing hides in a compressed value */
    private String dump() throws Exception {
        admin.configSet("rdbcompression", "no");
        admin.sendCommand(Protocol.Command.SAVE);
        String dir = admin.configGet("dir").get("dir");
        String file = admin.configGet("dbfilename").get("dbfilename");
        return new String(Files.readAllBytes(Path.of(dir, file)), StandardCharsets.ISO_8859_1);
    }

    @Test
    void aDumpHoldsNoClientIdentifierInClear() throws Exception {
        try (Engine engine = engine(RedisStore.builder().url(redis.url()).build())) {
            traffic(engine);
            String dump = dump();
            assertThat(admin.dbSize()).isEqualTo(4);
            assertThat(dump).contains("per-ip").contains("per-api-key");
            Set<String> keys = admin.keys("*");
            for (String client : CLIENTS) {
                assertThat(dump).as("the dump").doesNotContain(client);
                for (String key : keys) {
                    assertThat(key).doesNotContain(client);
                    assertThat(admin.get(key)).doesNotContain(client);
                }
            }
        }
    }

    @Test
    void rawKeysKeepThemReadableForDebugging() throws Exception {
        try (Engine engine = engine(RedisStore.builder().url(redis.url() + "?raw-keys=true").build())) {
            traffic(engine);
            String dump = dump();
            assertThat(dump).contains(CLIENTS.get(0)).contains(CLIENTS.get(1)).contains(CLIENTS.get(2))
                    .contains(CLIENTS.get(3));
        }
    }

    /** An operator's overrides, removals and resets, each recorded in the audit trail, previous values included. */
    private static void operate(Engine engine) {
        Operations ops = engine.operations();
        ops.override(PER_IP, CLIENTS.get(0), "10/1m", Duration.ofHours(1), "alice");
        ops.override(PER_IP, CLIENTS.get(1), "1/1m", null, "alice");
        ops.override(PER_API_KEY, CLIENTS.get(2), "100/1m", null, "alice");
        ops.override(PER_API_KEY, CLIENTS.get(2), "50/1m", null, "bob");
        ops.override(PER_USER, CLIENTS.get(3), "7/1m", null, "alice");
        ops.removeOverride(PER_IP.name(), CLIENTS.get(1), "bob");
        ops.reset(PER_USER.name(), CLIENTS.get(3), "bob");
        ops.reset(PER_IP.name(), CLIENTS.get(0), "bob");
        assertThat(ops.overrides()).hasSize(3);
        assertThat(ops.audit(20)).hasSize(8);
    }

    /** @return every key, field and value Redis holds: strings, hashes and streams, as Redis answers them */
    private List<String> everything() {
        List<String> all = new ArrayList<>();
        for (String key : admin.keys("*")) {
            all.add(key);
            switch (admin.type(key)) {
                case "string" -> all.add(admin.get(key));
                case "hash" -> admin.hgetAll(key).forEach((field, value) -> all.add(field + "=" + value));
                case "stream" -> admin.xrange(key, "-", "+").forEach(e -> all.add(e.getFields().toString()));
                default -> throw new AssertionError("a " + admin.type(key) + " this test does not read: " + key);
            }
        }
        return all;
    }

    @Test
    void overridesResetsAndTheAuditTrailHoldNoClientIdentifierInClear() throws Exception {
        try (RedisStore store = RedisStore.builder().url(redis.url()).build(); Engine engine = engine(store)) {
            traffic(engine);
            operate(engine);
            String dump = dump();
            List<String> held = everything();
            assertThat(held).as("the settings' keys are there").anyMatch(k -> k.endsWith(":_settings:audit"))
                    .anyMatch(k -> k.endsWith(":_settings:overrides"));
            for (String client : CLIENTS) {
                assertThat(dump).as("the dump").doesNotContain(client);
                assertThat(held).noneMatch(v -> v.contains(client));
            }
        }
    }

    @Test
    void rawKeysKeepOverridesAndTheAuditTrailReadable() throws Exception {
        try (Engine engine = engine(RedisStore.builder().url(redis.url() + "?raw-keys=true").build())) {
            operate(engine);            // no traffic: the keys come from the settings alone
            String dump = dump();
            for (String client : CLIENTS) {
                assertThat(dump).contains(client);
            }
        }
    }

    @Test
    void anAdminResetFindsTheKeyByItsRawValue() {
        try (RedisStore store = RedisStore.builder().url(redis.url()).build(); Engine engine = engine(store)) {
            traffic(engine);
            engine.reset("per-ip", CLIENTS.get(0));
            assertThat(admin.exists(store.key("per-ip", CLIENTS.get(0)))).isFalse();
            assertThat(admin.exists(store.key("per-ip", CLIENTS.get(1)))).isTrue();
        }
    }

    @Test
    void nodesWithTheSameSecretShareKeysAndAnotherSecretDoesNot() {
        String secret = "a fleet secret of 32 characters!";
        try (RedisStore a = RedisStore.builder().url(redis.url()).keySecret(secret).build();
                RedisStore b = RedisStore.builder().url(redis.url()).keySecret(secret).build();
                RedisStore other = RedisStore.builder().url(redis.url()).keySecret(secret.toUpperCase()).build();
                RedisStore derived = RedisStore.builder().url(redis.url()).build()) {
            assertThat(a.key("r", "203.0.113.77")).isEqualTo(b.key("r", "203.0.113.77"))
                    .isNotEqualTo(other.key("r", "203.0.113.77")).isNotEqualTo(derived.key("r", "203.0.113.77"));
        }
        assertThatThrownBy(() -> RedisStore.builder().url(redis.url()).keySecret("short")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("at least 16 characters").hasMessageNotContaining("short");
    }
}
