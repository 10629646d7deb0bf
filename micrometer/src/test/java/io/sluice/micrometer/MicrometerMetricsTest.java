package io.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.config.MeterFilterReply;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.Decision;
import io.sluice.core.DecisionListener;
import io.sluice.core.Engine;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.RuleOutcome;
import io.sluice.http.Parameters;
import io.sluice.core.policy.PolicyParser;
import io.sluice.http.SluiceConfig;
import io.sluice.http.FrontDoor;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MicrometerMetricsTest {

    @Test
    void countsDecisionsByRuleAndOutcomeWithoutKeys() {
        ManualTimeSource time = new ManualTimeSource();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerMetrics metrics = new MicrometerMetrics(registry);
        Engine engine = Engine.builder().timeSource(time)
                .store(metrics.instrument(MemoryStore.builder().timeSource(time).build()))
                .rule(Rule.builder("per-ip").policy(PolicyParser.parse("limit", "10/1m", Algorithm.FIXED_WINDOW))
                        .key(RequestView::remoteAddress).build())
                .listener(metrics)
                .build();
        metrics.bindCircuit(engine);
        RequestView request = RequestView.builder("GET", "/").remoteAddress("203.0.113.9").build();

        for (int i = 0; i < 12; i++) {
            engine.check(request);
        }

        assertThat(registry.counter("sluice.decisions", "rule", "per-ip", "outcome", "allowed").count()).isEqualTo(8);
        assertThat(registry.counter("sluice.decisions", "rule", "per-ip", "outcome", "near_limit").count()).isEqualTo(2);
        assertThat(registry.counter("sluice.decisions", "rule", "per-ip", "outcome", "denied").count()).as("one from the store, one from the denial cache").isEqualTo(2);
        assertThat(registry.counter("sluice.denial.cache.hits").count()).isEqualTo(1);
        assertThat(registry.timer("sluice.store.latency").count()).isEqualTo(11);
        assertThat(registry.get("sluice.store.circuit").gauge().value()).isZero();
        assertThat(registry.getMeters()).flatExtracting(m -> m.getId().getTags())
                .noneMatch(tag -> tag.getValue().contains("203.0.113.9"));
        assertThat(registry.getMeters()).extracting(Meter::getId).isNotEmpty();
    }

    @Test
    void bindPublishesEveryGaugeOfTheEngine() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerMetrics metrics = new MicrometerMetrics(registry);
        Engine engine = Engine.builder().store(MemoryStore.builder().build()).build();

        metrics.bind(engine);

        assertThat(registry.get("sluice.store.up").gauge().value()).isEqualTo(1);
        assertThat(registry.get("sluice.store.circuit").gauge().value()).isZero();
        assertThat(registry.get("sluice.leased.decisions").functionCounters()).hasSize(2);
        assertThat(registry.get("sluice.shared.version").gauge().value()).isZero();
        assertThat(registry.get("sluice.shared.rejections").functionCounter().count()).isZero();
    }

    /**
     * Fail-open is loud in the metrics too: each rule answered by its failure mode counts under its mode, and
     * {@code sluice.store.up} is 0 from the breaker's opening until the store answers again; a rule the rules in force
     * no longer have loses those meters.
     */
    @Test
    void countsEachRuleAnsweredByItsFailureModeAndWhetherTheStoreIsUp() {
        ManualTimeSource time = new ManualTimeSource();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerMetrics metrics = new MicrometerMetrics(registry);
        AtomicBoolean down = new AtomicBoolean();
        ForwardingStore switchable = new ForwardingStore(MemoryStore.builder().timeSource(time).build()) {
            @Override
            protected void beforeEvaluate(List<io.sluice.core.store.Check> checks) {
                if (down.get()) {
                    throw new io.sluice.core.store.StoreException("connection refused");
                }
            }
        };
        Rule site = Rule.builder("site").policy("100/1m").key(RequestView::remoteAddress).build();
        Rule login = Rule.builder("login").policy("100/1m").key(RequestView::remoteAddress)
                .onStoreFailure(Rule.FailureMode.DENY).build();
        Engine engine = Engine.builder().timeSource(time).store(switchable).rule(site).rule(login).listener(metrics)
                .build();
        metrics.bindCircuit(engine);
        RequestView request = RequestView.builder("GET", "/").remoteAddress("203.0.113.9").build();
        engine.check(request);
        assertThat(registry.get("sluice.store.up").gauge().value()).isEqualTo(1);

        down.set(true);
        for (int i = 0; i < 5; i++) {
            engine.check(request);
        }
        assertThat(registry.get("sluice.store.up").gauge().value()).as("the breaker is open").isZero();
        assertThat(registry.get("sluice.store.failures").tags("rule", "site", "mode", "allow").counter().count())
                .isEqualTo(5);
        assertThat(registry.get("sluice.store.failures").tags("rule", "login", "mode", "deny").counter().count())
                .isEqualTo(5);

        down.set(false);
        time.advanceMicros(1_000_000);
        engine.check(request);
        assertThat(registry.get("sluice.store.up").gauge().value()).as("back on the store").isEqualTo(1);

        metrics.onRulesChanged(List.of(site, login), List.of(site));
        assertThat(registry.find("sluice.store.failures").meters()).extracting(m -> m.getId().getTag("rule"))
                .containsExactly("site");
    }

    /** A shared store (Redis in production; here a memory store that says it is shared) and a rule that leases. */
    @Test
    void countsLeasedAndStoreDecisions() {
        ManualTimeSource time = new ManualTimeSource();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerMetrics metrics = new MicrometerMetrics(registry);
        ForwardingStore shared = new ForwardingStore(MemoryStore.builder().timeSource(time).build()) {
            @Override
            public boolean shared() {
                return true;
            }
        };
        Engine engine = Engine.builder().timeSource(time).store(metrics.instrument(shared))
                .rule(Rule.builder("api").policy(Policy.parse("1000/1s leased 100ms")).key(r -> "k").build())
                .build();
        metrics.bindLeases(engine);
        RequestView request = RequestView.builder("GET", "/").remoteAddress("203.0.113.9").build();
        for (int i = 0; i < 500; i++) {
            assertThat(engine.check(request).allowed()).isTrue();
            time.advanceMicros(2_000);
        }
        double lease = registry.get("sluice.leased.decisions").tag("answered", "lease").functionCounter().count();
        double store = registry.get("sluice.leased.decisions").tag("answered", "store").functionCounter().count();
        assertThat(lease + store).isEqualTo(500);
        assertThat(lease).as("answered from blocks").isGreaterThan(250);
        assertThat(registry.get("sluice.leased.takes").functionCounter().count()).isPositive();
        assertThat(registry.get("sluice.leased.permits").tag("fate", "taken").functionCounter().count())
                .isGreaterThanOrEqualTo(lease);
        assertThat(registry.get("sluice.leased.permits").tag("fate", "lapsed").functionCounter().count()).isNotNegative();
        engine.close();
    }

    /**
     * The shared settings on this node: the document version in force, the overrides, the documents it could not use
     * (a reader that cannot use a document, as a node lacking a named key the document names).
     */
    @Test
    void publishesTheSharedSettingsInForceAndTheDocumentsRejected() {
        ManualTimeSource time = new ManualTimeSource();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerMetrics metrics = new MicrometerMetrics(registry);
        Rule rule = Rule.builder("api").policy(Policy.parse("5/1m")).key(r -> "k").build();
        try (Engine engine = Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build())
                .rule(rule).build()) {
            metrics.bindSharedSettings(engine);
            engine.operations().readDocumentsWith(new io.sluice.core.Operations.DocumentReader() {
                @Override
                public void check(String text) {}

                @Override
                public void apply(io.sluice.core.store.SharedDocument document) {
                    if (document.present() && document.text().contains("tenant")) {
                        throw new io.sluice.core.config.ConfigException("no named key tenant on this node");
                    }
                }
            });
            assertThat(registry.get("sluice.shared.version").gauge().value()).isZero();
            assertThat(registry.get("sluice.shared.overrides").gauge().value()).isZero();
            assertThat(registry.get("sluice.shared.rejections").functionCounter().count()).isZero();

            engine.operations().replaceRules("rules: [{name: api, limit: 9/1m}]", -1, "alice");
            engine.operations().replaceRules("rules: [{name: t, key: tenant, limit: 9/1m}]", -1, "alice");
            engine.operations().override(rule, "acme", "50/1m", null, "alice");

            assertThat(registry.get("sluice.shared.version").gauge().value()).as("the first, still in force")
                    .isEqualTo(1);
            assertThat(registry.get("sluice.shared.rejections").functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("sluice.shared.overrides").gauge().value()).isEqualTo(1);
        }
    }

    private static double decisions(SimpleMeterRegistry registry, String rule, String outcome) {
        Counter c = registry.find("sluice.decisions").tags("rule", rule, "outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }

    /** The {@code rule} tags of the {@code sluice.decisions} meters registered. */
    private static Set<String> ruleTags(SimpleMeterRegistry registry) {
        return registry.find("sluice.decisions").meters().stream().map(m -> m.getId().getTag("rule"))
                .collect(Collectors.toSet());
    }

    /**
     * The servlet filter's queue full (its {@link Engine.QueueGate} refuses to queue a request admitted after a delay):
     * the 429 counts as denied, once, and not as allowed; a request queued counts as allowed.
     */
    @Test
    void aRequestRefusedBecauseTheQueueIsFullCountsAsDeniedNotAsAllowed() {
        ManualTimeSource time = new ManualTimeSource();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerMetrics metrics = new MicrometerMetrics(registry);
        SluiceConfig config = SluiceConfig.load(Parameters.of("sluice",
                Map.of("limit", "1/1m burst 2 max-wait 5m", "name", "queue"), "test"), SluiceConfig.files());
        Engine.QueueGate full = (request, admitted) -> {      // as the filter's queueFull: denied by the queuing rule
            RuleOutcome q = admitted.binding();
            Outcome o = q.outcome();
            return Decision.of(List.of(new RuleOutcome(q.rule(), q.policy(),
                    Outcome.deny(o.limit(), o.remaining(), o.resetAfterMicros(), admitted.delayMicros()), q.source())),
                    List.of(), admitted.atMicros());
        };
        Engine.QueueGate room = (request, admitted) -> admitted;
        try (FrontDoor door = FrontDoor.open(config, time, null, List.of(metrics))) {
            RequestView a = RequestView.builder("GET", "/").remoteAddress("203.0.113.9").build();
            RequestView b = RequestView.builder("GET", "/").remoteAddress("203.0.113.10").build();

            assertThat(door.check(a, full).delayMicros()).as("its turn now").isZero();
            assertThat(door.check(a, full).allowed()).as("it would wait a minute: refused").isFalse();
            assertThat(door.check(b, room).allowed()).isTrue();
            assertThat(door.check(b, room).delayMicros()).as("queued").isEqualTo(60_000_000);

            assertThat(decisions(registry, "queue", "denied")).as("the refusal").isEqualTo(1);
            assertThat(decisions(registry, "queue", "allowed") + decisions(registry, "queue", "near_limit"))
                    .as("the three others, the refusal not among them").isEqualTo(3);
            assertThat(registry.find("sluice.decisions").counters().stream().mapToDouble(Counter::count).sum())
                    .as("one count per decision").isEqualTo(4);
        }
    }

    /**
     * A reload that removes a rule removes its meters: a dashboard shows no rule that is gone. A rule whose policy
     * changed keeps its meters and counts on; a decision made under the removed rule just before the reload, and
     * reported after it, does not register them again; a rule of that name added back counts from zero.
     */
    @Test
    void aReloadThatRemovesARuleRemovesItsMeters(@TempDir Path dir) throws IOException {
        ManualTimeSource time = new ManualTimeSource();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerMetrics metrics = new MicrometerMetrics(registry);
        Path file = dir.resolve("rules.yaml");
        long[] mtime = {1_700_000_000_000L};
        IoWrite write = yaml -> {
            Files.writeString(file, yaml);
            mtime[0] += 1_000;        // a new modification time, set explicitly: no sleeping for the clock to tick
            Files.setLastModifiedTime(file, FileTime.fromMillis(mtime[0]));
        };
        write.to("rules: [{name: kept, limit: 10/1m}, {name: dropped, limit: 10/1m}]");
        SluiceConfig config = SluiceConfig.load(Parameters.of("sluice",
                Map.of("rules", file.toString(), "reload-interval", "10s"), "test"), SluiceConfig.files());
        RequestView client = RequestView.builder("GET", "/").remoteAddress("203.0.113.9").build();
        try (FrontDoor door = FrontDoor.open(config, time, null, List.of(metrics))) {
            door.check(client);
            Decision underTheOldRules = door.check(client);
            assertThat(ruleTags(registry)).containsExactlyInAnyOrder("kept", "dropped");

            write.to("rules: [{name: kept, limit: 20/1m}]");     // "kept" with another policy, "dropped" gone
            time.advanceMicros(10_000_000);
            door.check(client);                                  // reloads, then decides under the new rules

            assertThat(door.rules().names()).containsExactly("kept");
            assertThat(ruleTags(registry)).as("the removed rule's meters are gone").containsExactly("kept");
            assertThat(decisions(registry, "kept", "allowed")).as("counting on across the reload").isEqualTo(3);

            // reported only now (its thread was slow): counted under "kept", not registering "dropped" again
            metrics.onDecision(client, underTheOldRules, DecisionListener.Event.ALLOWED);
            assertThat(ruleTags(registry)).containsExactly("kept");
            assertThat(decisions(registry, "kept", "allowed")).isEqualTo(4);

            write.to("rules: [{name: kept, limit: 20/1m}, {name: dropped, limit: 10/1m}]");
            time.advanceMicros(10_000_000);
            door.check(client);
            assertThat(ruleTags(registry)).as("back in the file: counted again")
                    .containsExactlyInAnyOrder("kept", "dropped");
            assertThat(decisions(registry, "dropped", "allowed")).as("from zero").isEqualTo(1);
        }
    }

    /**
     * A reload that removes a rule while a decision under it is being counted (it read the removed rules before the
     * reload, and registers the rule's meter after the reload removed the meters): the count removes that meter again.
     * The reload runs inside the registration, from a meter filter, where another thread's reload could fall.
     */
    @Test
    void aDecisionCountedWhileAReloadRemovesItsRuleLeavesNoMeterBehind() {
        ManualTimeSource time = new ManualTimeSource();
        Rule kept = Rule.builder("kept").policy("10/1m").key(RequestView::remoteAddress).build();
        Rule dropped = Rule.builder("dropped").policy("10/1m").key(RequestView::remoteAddress).build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerMetrics[] metrics = new MicrometerMetrics[1];
        AtomicBoolean reloadAtNextRegistration = new AtomicBoolean();
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public MeterFilterReply accept(Meter.Id id) {
                if (reloadAtNextRegistration.getAndSet(false)) {      // as "kept"'s meter registers, before "dropped"'s
                    metrics[0].onRulesChanged(List.of(kept, dropped), List.of(kept));
                }
                return MeterFilterReply.NEUTRAL;
            }
        });
        metrics[0] = new MicrometerMetrics(registry);
        Engine engine = Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build())
                .rule(kept).rule(dropped).listener(metrics[0]).build();

        reloadAtNextRegistration.set(true);
        engine.check(RequestView.builder("GET", "/").remoteAddress("203.0.113.9").build());

        assertThat(reloadAtNextRegistration).as("the reload ran").isFalse();
        assertThat(ruleTags(registry)).containsExactly("kept");
    }

    @FunctionalInterface
    private interface IoWrite {
        void to(String yaml) throws IOException;
    }
}
