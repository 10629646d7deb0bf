package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Engine;
import io.sluice.core.Operations;
import io.sluice.core.Rule;
import io.sluice.core.key.KeyResolvers;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.SharedDocument;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.Await;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The shared settings when Redis loses its data (restarted empty): two nodes on one real Redis, each with a reader of
 * rules documents that notes what it is given. What is in force follows what Redis holds: no document, no override
 * (each node's local rules alone), then the next document written, numbered 1 again, on both nodes. Waits are bounded,
 * never a sleep.
 */
class SettingsDataLossIT {

    private static final Rule RULE = Rule.builder("api").policy(Policy.parse("2/1h"))
            .key(KeyResolvers.header("X-Api-Key")).build();
    /** The longest a change may take to be applied on a node. */
    private static final Duration WITHIN = Duration.ofSeconds(10);

    private final ManualTimeSource clock = new ManualTimeSource();
    private RedisProcess redis;
    private RedisStore storeA;
    private RedisStore storeB;
    private Engine a;
    private Engine b;

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {a, b, storeA, storeB, redis}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private RedisStore store() {
        return RedisStore.builder().url(redis.url()).applicationTime(true).timeout(Duration.ofSeconds(2)).build();
    }

    private Engine node(RedisStore store) {
        return Engine.builder().timeSource(clock).store(store).rule(RULE).settingsInterval(Duration.ofMillis(20))
                .build();
    }

    @Test
    void afterRedisRestartedEmptyTheNodesUseTheirLocalRulesThenTheNextDocument() throws Exception {
        redis = RedisProcess.start();
        storeA = store();
        storeB = store();
        a = node(storeA);
        b = node(storeB);
        Noted atA = new Noted();
        Noted atB = new Noted();
        a.operations().readDocumentsWith(atA);
        b.operations().readDocumentsWith(atB);
        a.operations().replaceRules("rules: 3/1h", 0, "alice");
        a.operations().override(RULE, "acme", "5/1h", null, "alice");
        awaitInForce(b, atB, "rules: 3/1h", 1);
        long before = storeA.settings().version();

        redis.restart();
        awaitInForce(a, atA, null, 0);
        awaitInForce(b, atB, null, 0);
        assertThat(a.operations().status().documentVersion()).as("no document: the local rules alone").isZero();

        Await.until("the next document written", WITHIN, () -> write(a, "rules: 7/1h"));
        assertThat(a.operations().document().version()).as("numbered anew").isEqualTo(1);
        a.operations().override(RULE, "zeta", "9/1h", null, "alice");
        assertThat(storeA.settings().version()).as("never a version held before the loss").isGreaterThan(before);
        awaitInForce(a, atA, "rules: 7/1h", 1);
        awaitInForce(b, atB, "rules: 7/1h", 1);
        assertThat(b.operations().status().documentVersion()).isEqualTo(1);
    }

    /** @return whether {@code text} was written through {@code node} (false: Redis not answering yet) */
    private static boolean write(Engine node, String text) {
        try {
            node.operations().replaceRules(text, -1, "bob");
            return true;
        } catch (StoreException e) {
            return false;
        }
    }

    /** Waits (bounded) until {@code node} has {@code text} (null: none) and {@code overrides} overrides in force. */
    private static void awaitInForce(Engine node, Noted reader, String text, int overrides) {
        Await.until("document " + text + " and " + overrides + " override(s) in force", WITHIN, () -> {
            Operations.Status s = node.operations().status();
            return !reader.applied.isEmpty() && Objects.equals(reader.last().text(), text)
                    && s.overrides() == overrides;
        });
    }

    /** Takes every document, noting it. */
    private static final class Noted implements Operations.DocumentReader {
        final List<SharedDocument> applied = new CopyOnWriteArrayList<>();

        SharedDocument last() {
            return applied.get(applied.size() - 1);
        }

        @Override
        public void check(String text) {}

        @Override
        public void apply(SharedDocument document) {
            applied.add(document);
        }
    }
}
