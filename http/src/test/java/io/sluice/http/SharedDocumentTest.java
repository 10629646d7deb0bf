package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.Operations;
import io.sluice.core.config.ConfigException;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.store.AuditEntry;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.LogCapture;
import io.sluice.core.testing.ManualTimeSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A front door reads shared rules documents: two nodes share one store's settings (on Redis, the fleet's; here one
 * {@link SharedSettings#local()} both see), one of them with a named key the other lacks.
 */
class SharedDocumentTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final SharedSettings shared = SharedSettings.local();

    private FrontDoor node(Map<String, KeyResolver> namedKeys) {
        ForwardingStore store = new ForwardingStore(MemoryStore.builder().timeSource(time).build()) {
            @Override
            public SharedSettings settings() {
                return shared;
            }
        };
        return FrontDoor.open(SluiceConfig.load(Parameters.of("sluice", Map.of("limit", "50/1m"), "test"),
                SluiceConfig.files(), namedKeys), time, store, List.of());
    }

    @Test
    void aDocumentThisNodeCannotUseIsRejectedSaidSoAndTheRulesInForceStay() {
        try (FrontDoor writer = node(Map.of("tenant", request -> "acme"));
                FrontDoor other = node(Map.of());
                LogCapture log = new LogCapture(Operations.class.getName())) {
            writer.admin().replaceSharedRules("rules: [{name: per-tenant, key: tenant, limit: 5/1m}]", -1, "alice");
            assertThat(writer.rules().names()).containsExactly("per-ip", "per-tenant");
            RuleSet before = other.rules();

            assertThat(other.engine().operations().refresh()).isTrue();      // as the watcher does on a message

            Operations.Status status = other.admin().status();
            assertThat(status.rejectedVersion()).isEqualTo(1);
            assertThat(status.documentVersion()).isZero();
            assertThat(status.rejections()).isEqualTo(1);
            assertThat(status.rejection()).startsWith("shared rules document: rules[0] (per-tenant).key").contains("tenant");
            assertThat(other.rules()).isSameAs(before);
            assertThat(String.join("\n", log.messages())).contains("shared rules document version 1 cannot be used on "
                    + "this node; keeping the rules in force (document version 0)");

            writer.admin().replaceSharedRules("rules: [{name: per-ip, limit: 5/1m}]", 1, "alice");
            other.engine().operations().refresh();
            assertThat(other.admin().status()).extracting(Operations.Status::documentVersion,
                    Operations.Status::rejectedVersion, Operations.Status::rejection, Operations.Status::rejections)
                    .containsExactly(2L, 0L, "", 1L);
            assertThat(other.rules().rules().get(0).policy().toString()).isEqualTo("5/1m (gcra)");
            assertThat(other.admin().ruleOrigins()).containsExactly(Map.entry("per-ip", RuleOrigin.DOCUMENT));
        }
    }

    @Test
    void anInvalidDocumentIsNotWrittenNorRecorded() {
        try (FrontDoor door = node(Map.of())) {
            assertThatThrownBy(() -> door.admin().replaceSharedRules("rules: [{name: api, limit: lots}]", -1, "alice"))
                    .isInstanceOf(ConfigException.class).hasMessageStartingWith("shared rules document: rules[0] (api)");

            assertThat(door.admin().sharedRules().present()).isFalse();
            assertThat(door.admin().audit(10)).isEmpty();
            assertThat(door.admin().status().version()).isZero();
            assertThat(door.rules().names()).containsExactly("per-ip");
        }
    }

    @Test
    void resetsAndOverridesAreRecordedWithWhoAndUnknownRulesAreRefused() {
        try (FrontDoor door = node(Map.of())) {
            assertThat(door.admin().reset("nope", "203.0.113.9", "alice")).isFalse();
            assertThat(door.admin().override("nope", "203.0.113.9", "5/1m", null, "alice")).isNull();
            assertThat(door.admin().audit(10)).isEmpty();

            assertThat(door.admin().reset("per-ip", "203.0.113.9", "alice")).isTrue();
            door.admin().override("per-ip", "203.0.113.9", "500/1m", null, "bob");
            assertThatThrownBy(() -> door.admin().override("per-ip", "203.0.113.9", "5/1m", java.time.Duration.ofDays(
                    3_651), "bob")).isInstanceOf(ConfigException.class).hasMessageContaining("3650 days");

            assertThat(door.admin().audit(10)).extracting(AuditEntry::action, AuditEntry::who, AuditEntry::key)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(AuditEntry.Action.OVERRIDE_SET, "bob", "203.0.113.9"),
                            org.assertj.core.groups.Tuple.tuple(AuditEntry.Action.KEY_RESET, "alice", "203.0.113.9"));
        }
    }
}
