package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.Await;
import io.sluice.core.Engine;
import io.sluice.core.Rule;
import io.sluice.core.key.KeyResolvers;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.store.KeyOverride;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Overrides across a fleet: two engines (two nodes, each its own store) on one real Redis and one application clock.
 * An override set on node A is in force on node B, through the fleet's message, or where the message was missed
 * through B's periodic check of the settings' version; removing it restores the rule's policy. Waits are on B's
 * {@code Operations.status()}, bounded, never a sleep.
 */
class FleetSettingsIT {

    /** Two an hour per API key; acme gets five. */
    private static final Rule RULE = Rule.builder("api").policy(Policy.parse("2/1h"))
            .key(KeyResolvers.header("X-Api-Key")).build();
    /** A check interval no test waits out: only a message can bring a change. */
    private static final Duration NEVER = Duration.ofHours(1);
    /** The longest a change may take to be applied on the other node. */
    private static final Duration WITHIN = Duration.ofSeconds(10);

    private final ManualTimeSource clock = new ManualTimeSource();
    private RedisProcess redis;
    private RedisStore storeA;
    private RedisStore storeB;
    private Engine a;
    private Engine b;

    @BeforeEach
    void start() throws Exception {
        redis = RedisProcess.start();
        storeA = store();
        storeB = store();
    }

    private RedisStore store() {
        return RedisStore.builder().url(redis.url()).applicationTime(true).timeout(Duration.ofSeconds(2)).build();
    }

    private Engine engine(RedisStore store, Duration settingsInterval) {
        return Engine.builder().timeSource(clock).store(store).rule(RULE).settingsInterval(settingsInterval).build();
    }

    @AfterEach
    void stop() throws Exception {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
        storeA.close();
        storeB.close();
        redis.close();
    }

    private static boolean allowed(Engine node, String apiKey) {
        return node.check(RequestView.builder("GET", "/").header("X-Api-Key", apiKey).build()).allowed();
    }

    /** @return how many of {@code n} requests of {@code apiKey} on {@code node} were allowed */
    private static int allowed(Engine node, String apiKey, int n) {
        int ok = 0;
        for (int i = 0; i < n; i++) {
            ok += allowed(node, apiKey) ? 1 : 0;
        }
        return ok;
    }

    /** Waits (bounded) until {@code node} has applied the settings' version {@code version} gives. */
    private static void awaitApplied(Engine node, LongSupplier version) {
        long wanted = version.getAsLong();
        Await.until("settings version " + wanted + " applied", WITHIN,
                () -> node.operations().status().version() == wanted);
    }

    @Test
    void anOverrideSetOnOneNodeIsInForceOnTheOtherByTheFleetsMessage() {
        a = engine(storeA, NEVER);
        b = engine(storeB, NEVER);
        a.operations().override(RULE, "acme", "5/1h", null, "alice");
        awaitApplied(b, () -> storeA.settings().version());
        assertThat(b.operations().status().overrides()).isEqualTo(1);
        assertThat(allowed(b, "acme", 6)).as("acme under its override, 5/1h").isEqualTo(5);
        assertThat(allowed(b, "other", 3)).as("another key under the rule's 2/1h").isEqualTo(2);

        a.operations().removeOverride(RULE.name(), "acme", "alice");
        awaitApplied(b, () -> storeA.settings().version());
        assertThat(b.operations().status().overrides()).isZero();
        clock.advance(Duration.ofHours(2));             // a fresh hour, the denials remembered past
        assertThat(allowed(b, "acme", 3)).as("acme under the rule's 2/1h again").isEqualTo(2);
    }

    @Test
    void aChangeWhoseMessageWasMissedIsReadByThePeriodicCheck() {
        b = engine(storeB, Duration.ofMillis(20));
        // written straight into Redis, as by a node whose message never arrived: no message at all
        SharedSettings direct = storeA.settings();
        direct.putOverride(new KeyOverride(RULE.name(), direct.keyId("acme"), "5/1h", 0, "alice",
                clock.nowMicros() / 1000));
        awaitApplied(b, direct::version);
        assertThat(allowed(b, "acme", 6)).as("acme under its override, 5/1h").isEqualTo(5);
        assertThat(allowed(b, "other", 3)).as("another key under the rule's 2/1h").isEqualTo(2);

        direct.removeOverride(RULE.name(), direct.keyId("acme"), "alice", clock.nowMicros() / 1000);
        awaitApplied(b, direct::version);
        clock.advance(Duration.ofHours(2));
        assertThat(allowed(b, "acme", 3)).as("acme under the rule's 2/1h again").isEqualTo(2);
    }

    /** The overridden policy travels in the decision's own script call: one call per decision, no more. */
    @Test
    void anOverrideCostsNoCallOfItsOwn() {
        b = engine(storeB, NEVER);
        b.operations().override(RULE, "acme", "5/1h", null, "alice");
        assertThat(allowed(b, "warm-up")).isTrue();    // the script is loaded where it was missing
        CommandStats.reset(redis.url());
        assertThat(allowed(b, "acme", 3)).isEqualTo(3);
        CommandStats stats = CommandStats.of(redis.url());
        assertThat(stats.scriptCalls()).as("script calls of three decisions: %s", stats.calls()).isEqualTo(3);
        assertThat(stats.calls().keySet()).as("no other scripting command").isSubsetOf("fcall", "evalsha");
    }
}
