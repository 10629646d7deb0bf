package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.key.KeyResolvers;
import io.sluice.core.request.RequestView;
import io.sluice.core.store.AuditEntry;
import io.sluice.core.store.KeyOverride;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.SharedDocument;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.testing.SharedLocalSettings;
import io.sluice.core.store.SharedSnapshot;
import io.sluice.core.store.StaleVersionException;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The operator's handle on the memory store: overrides, resets and rules documents, each in the audit trail. */
class OperationsTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final Rule api = Rule.builder("api").policy("2/1h").key(KeyResolvers.header("X-Api-Key")).build();
    private final Engine engine = Engine.builder().timeSource(time)
            .store(MemoryStore.builder().timeSource(time).build()).rule(api).build();
    private final Operations ops = engine.operations();

    @Test
    void anOverrideRaisesOneKeyAndKeepsItsCount() {
        assertThat(allowed("acme", 1)).isEqualTo(1);
        KeyOverride o = ops.override(api, "acme", "5/1h", null, "alice");
        assertThat(o.policy()).isEqualTo("5/1h (gcra)");
        assertThat(o.who()).isEqualTo("alice");
        // GCRA keeps the key's state: the request before took 30 minutes of the hour, 2.5 requests at 5/1h
        assertThat(allowed("acme", 10)).as("no fresh quota: the state before the override stays").isEqualTo(2);
        time.advance(Duration.ofHours(1));
        assertThat(allowed("acme", 10)).as("the override's burst").isEqualTo(5);
        assertThat(allowed("other", 10)).as("another key keeps the rule's limit").isEqualTo(2);
        assertThat(engine.check(request("acme")).outcomes().get(0).policy().limit()).isEqualTo(5);
    }

    @Test
    void anOverrideCanCutAKeyAndEndsOnItsOwn() {
        ops.override(api, "noisy", "1/1m", Duration.ofMinutes(10), "alice");
        assertThat(allowed("noisy", 3)).isEqualTo(1);
        time.advance(Duration.ofMinutes(10));
        assertThat(ops.overrides()).as("ended: not listed").isEmpty();
        assertThat(engine.check(request("noisy")).outcomes().get(0).policy().limit()).as("the rule's again")
                .isEqualTo(2);
    }

    @Test
    void removingAnOverrideRestoresTheRulesPolicy() {
        ops.override(api, "acme", "5/1h", null, "alice");
        assertThat(ops.overrides()).hasSize(1);
        assertThat(ops.removeOverride("api", "acme", "bob")).isNotNull();
        assertThat(ops.removeOverride("api", "acme", "bob")).as("none left").isNull();
        assertThat(allowed("acme", 5)).isEqualTo(2);
        assertThat(ops.status().overrides()).isZero();
    }

    @Test
    void anOverrideKeepsTheRulesAlgorithmAndRefusesBadNumbers() {
        assertThatThrownBy(() -> ops.override(api, "acme", "5/1h (fixed-window)", null, "alice"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("algorithm of rule api (gcra)");
        assertThatThrownBy(() -> ops.override(api, "acme", "five an hour", null, "alice"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("five an hour");
        assertThatThrownBy(() -> ops.override(api, "acme", "5/1h", Duration.ZERO, "alice"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("positive");
        assertThat(ops.audit(10)).as("nothing written").isEmpty();
    }

    @Test
    void theAuditTrailRecordsEachActionWithWhoAndThePreviousValue() {
        ops.override(api, "acme", "5/1h", null, "alice");
        ops.override(api, "acme", "9/1h", null, "bob");
        ops.removeOverride("api", "acme", "carol");
        ops.reset("api", "acme", "dave");
        List<AuditEntry> trail = ops.audit(10);
        assertThat(trail).extracting(AuditEntry::action).containsExactly(AuditEntry.Action.KEY_RESET,
                AuditEntry.Action.OVERRIDE_REMOVED, AuditEntry.Action.OVERRIDE_SET, AuditEntry.Action.OVERRIDE_SET);
        assertThat(trail).extracting(AuditEntry::who).containsExactly("dave", "carol", "bob", "alice");
        assertThat(trail.get(2).value()).isEqualTo("9/1h (gcra)");
        assertThat(trail.get(2).previous()).isEqualTo("5/1h (gcra)");
        assertThat(trail.get(1).previous()).isEqualTo("9/1h (gcra)");
        assertThat(trail.get(0).rule()).isEqualTo("api");
        assertThat(trail.get(0).key()).isEqualTo("acme");
        assertThat(trail.get(0).atMillis()).isEqualTo(ManualTimeSource.START_MICROS / 1000);
        assertThat(ops.audit(1)).hasSize(1);
    }

    @Test
    void aResetUnblocksTheKey() {
        assertThat(allowed("acme", 3)).isEqualTo(2);
        ops.reset("api", "acme", "alice");
        assertThat(allowed("acme", 3)).isEqualTo(2);
    }

    @Test
    void aRulesDocumentNeedsAReaderAndIsCheckedBeforeItIsWritten() {
        assertThatThrownBy(() -> ops.replaceRules("rules: []", 0, "alice")).isInstanceOf(IllegalStateException.class);
        Reader reader = new Reader();
        ops.readDocumentsWith(reader);
        assertThat(reader.applied).as("nothing in the store yet: the local rules alone, as they are").isEmpty();
        assertThatThrownBy(() -> ops.replaceRules("bad", 0, "alice")).isInstanceOf(ConfigException.class);
        assertThat(ops.audit(10)).as("refused where written: nothing recorded").isEmpty();

        SharedDocument first = ops.replaceRules("good 1", 0, "alice");
        assertThat(first.version()).isEqualTo(1);
        assertThat(reader.applied).as("in force here at once").last().isEqualTo(first);
        assertThatThrownBy(() -> ops.replaceRules("good 2", 0, "bob")).isInstanceOf(StaleVersionException.class)
                .hasMessageContaining("version 1, not 0");
        SharedDocument second = ops.replaceRules("good 2", 1, "bob");
        assertThat(ops.document()).isEqualTo(second);
        assertThat(ops.status().documentVersion()).isEqualTo(2);
        AuditEntry replaced = ops.audit(1).get(0);
        assertThat(replaced.action()).isEqualTo(AuditEntry.Action.RULES_REPLACED);
        assertThat(replaced.previous()).isEqualTo("good 1");
        assertThat(replaced.who()).isEqualTo("bob");

        ops.replaceRules(null, -1, "carol");
        assertThat(reader.applied).last().extracting(SharedDocument::present).isEqualTo(false);
        assertThatThrownBy(() -> ops.readDocumentsWith(new Reader())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aDocumentThisNodeCannotUseKeepsTheRulesInForceAndSaysSo() {
        Reader reader = new Reader();
        ops.readDocumentsWith(reader);
        ops.replaceRules("good 1", 0, "alice");
        reader.refuse = true;           // valid where written, unusable here (a named key this node lacks, say)
        ops.replaceRules("good 2", 1, "alice");
        Operations.Status s = ops.status();
        assertThat(s.documentVersion()).isEqualTo(1);
        assertThat(s.rejectedVersion()).isEqualTo(2);
        assertThat(s.rejection()).isEqualTo("cannot use good 2 here");
        assertThat(s.rejections()).isEqualTo(1);
        ops.override(api, "acme", "5/1h", null, "alice");
        assertThat(ops.status().rejections()).as("the same version is not tried again").isEqualTo(1);
        assertThat(ops.status().overrides()).as("overrides apply all the same").isEqualTo(1);
        reader.refuse = false;
        ops.replaceRules("good 3", 2, "alice");
        assertThat(ops.status().documentVersion()).isEqualTo(3);
        assertThat(ops.status().rejection()).isEmpty();
    }

    @Test
    void theLocalSettingsHoldABoundedNumberOfOverridesAndAuditEntries() {
        SharedSettings local = SharedSettings.local();
        for (int i = 0; i < SharedSettings.MAX_OVERRIDES; i++) {
            local.putOverride(new KeyOverride("api", "k" + i, "5/1h (gcra)", 0, "alice", 1));
        }
        assertThatThrownBy(() -> local.putOverride(new KeyOverride("api", "one more", "5/1h (gcra)", 0, "a", 1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("at most 10000 overrides");
        local.putOverride(new KeyOverride("api", "k1", "6/1h (gcra)", 0, "alice", 1));     // a key that has one
        assertThat(local.audit(5_000)).hasSize(SharedSettings.AUDIT_LENGTH);
        assertThat(local.audit(1).get(0).value()).isEqualTo("6/1h (gcra)");
        assertThatThrownBy(() -> local.replaceDocument("x".repeat(SharedSettings.MAX_DOCUMENT_BYTES + 1), -1, "a", 1))
                .isInstanceOf(IllegalArgumentException.class);

        SharedSettings fresh = SharedSettings.local();
        fresh.putOverride(new KeyOverride("api", "ending", "5/1h (gcra)", 10, "alice", 1));
        fresh.putOverride(new KeyOverride("api", "k2", "7/1h (gcra)", 0, "alice", 10));
        assertThat(fresh.read().overrides()).as("an ended one is dropped at the next write")
                .extracting(KeyOverride::key).containsExactly("k2");
    }

    /**
     * A store that lost its data (Redis restarted empty): the document is gone, so every node returns to its local
     * rules, and the next document is numbered 1 again, yet put in force where document 1 was before.
     */
    @Test
    void afterTheStoreLostItsSettingsTheLocalRulesAndThenTheNextDocumentAreInForce() {
        LosingSettings settings = new LosingSettings();
        Operations node = new Operations(settings, new Overrides(settings, time), engine, time, () -> {});
        Reader reader = new Reader();
        node.readDocumentsWith(reader);
        node.replaceRules("good 3/1h", 0, "alice");
        node.override(api, "acme", "5/1h", null, "alice");
        assertThat(reader.applied).extracting(SharedDocument::text).containsExactly("good 3/1h");

        settings.lose();
        assertThat(node.refresh()).isTrue();
        assertThat(reader.applied).as("no document in the store: the local rules alone").last()
                .isEqualTo(SharedDocument.NONE);
        assertThat(node.status()).extracting(Operations.Status::documentVersion, Operations.Status::overrides)
                .containsExactly(0L, 0);

        SharedDocument next = node.replaceRules("good 7/1h", 0, "bob");
        assertThat(next.version()).as("numbered anew").isEqualTo(1);
        assertThat(reader.applied).as("in force, though document 1 was before").last().isEqualTo(next);
        assertThat(node.status().documentVersion()).isEqualTo(1);
    }

    private int allowed(String key, int requests) {
        int n = 0;
        for (int i = 0; i < requests; i++) {
            if (engine.check(request(key)).allowed()) {
                n++;
            }
        }
        return n;
    }

    private static RequestView request(String key) {
        return RequestView.builder("GET", "/").header("X-Api-Key", key).build();
    }

    /** Takes documents whose text starts with "good"; refuses to apply them when told to. */
    private static final class Reader implements Operations.DocumentReader {
        final List<SharedDocument> applied = new ArrayList<>();
        boolean refuse;

        @Override
        public void check(String text) {
            if (!text.startsWith("good")) {
                throw new ConfigException("rules", text, "expected a good document");
            }
        }

        @Override
        public void apply(SharedDocument document) {
            if (refuse) {
                throw new ConfigException("cannot use " + document.text() + " here");
            }
            applied.add(document);
        }
    }

    /**
     * This node's settings, shared in name, that {@link #lose()} their data as a store restarted empty does: what was
     * written is gone, the document is numbered from 1 again, and the version counter starts again higher, as
     * {@code RedisSettings}'s does (a store's version never gives again one it gave before).
     */
    private static final class LosingSettings extends SharedLocalSettings {
        private long start;

        void lose() {
            replaceLocal();
            start += 1_000_000;
        }

        @Override
        public long version() {
            return local().version() == 0 ? 0 : start + local().version();
        }

        @Override
        public SharedSnapshot read() {
            SharedSnapshot s = local().read();
            return new SharedSnapshot(s.version() == 0 ? 0 : start + s.version(), s.document(), s.overrides());
        }
    }
}
