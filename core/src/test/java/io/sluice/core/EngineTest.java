package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import io.sluice.core.request.RequestView;
import io.sluice.core.request.RequestMatcher;
import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.key.KeyResolvers;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EngineTest {

    private final ManualTimeSource time = new ManualTimeSource();

    private Engine engine(Rule... rules) {
        return Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build())
                .rules(List.of(rules)).build();
    }

    private static RequestView get(String path, String ip) {
        return RequestView.builder("GET", path).remoteAddress(ip).build();
    }

    private static Policy fixed(String notation) {
        return PolicyParser.parse("limit", notation, Algorithm.FIXED_WINDOW);
    }

    @Test
    void onlyMatchingRulesTakePartAndTheTightestBinds() {
        Engine engine = engine(
                Rule.builder("api").matcher(RequestMatcher.of(List.of("/api/**"), Set.of())).policy(fixed("10/1m"))
                        .key(RequestView::remoteAddress).build(),
                Rule.builder("login").matcher(RequestMatcher.of(List.of("/login"), Set.of("POST"))).policy(fixed("3/1m"))
                        .key(RequestView::remoteAddress).build(),
                Rule.builder("site").policy(fixed("5/1m")).key(RequestView::remoteAddress).build());

        Decision d = engine.check(get("/api/orders", "1.2.3.4"));

        assertThat(d.outcomes()).extracting(o -> o.rule().name()).containsExactly("api", "site");
        assertThat(d.binding().rule().name()).isEqualTo("site");
        assertThat(d.binding().outcome().remaining()).isEqualTo(4);
    }

    @Test
    void aRequestReadsTheClockOnceWhenTheStoreSharesTheEnginesClock() {
        int[] reads = {0};
        io.sluice.core.time.TimeSource counting = () -> {
            reads[0]++;
            return time.nowMicros();
        };
        Engine shared = Engine.builder().timeSource(counting)
                .store(MemoryStore.builder().timeSource(counting).build())
                .rules(List.of(Rule.builder("per-ip").policy(fixed("2/1m")).key(RequestView::remoteAddress).build(),
                        Rule.builder("log").policy(PolicyParser.parse("limit", "5/1m", Algorithm.SLIDING_LOG))
                                .key(RequestView::remoteAddress).build()))
                .build();
        reads[0] = 0;
        assertThat(shared.check(get("/", "a")).allowed()).isTrue();
        assertThat(reads[0]).as("one read serves the decision and the store's expiry").isEqualTo(1);

        Engine apart = Engine.builder().timeSource(counting).store(MemoryStore.builder().timeSource(time).build())
                .rules(List.of(Rule.builder("per-ip").policy(fixed("2/1m")).key(RequestView::remoteAddress).build()))
                .build();
        reads[0] = 0;
        assertThat(apart.check(get("/", "a")).allowed()).isTrue();
        assertThat(reads[0]).as("a store on another clock reads its own").isEqualTo(1);
    }

    @Test
    void deniedDecisionNamesTheRuleThatDeniedAndItsRetryAfter() {
        Engine engine = engine(Rule.builder("per-ip").policy(fixed("2/1m")).key(RequestView::remoteAddress).build());
        time.advance(Duration.ofSeconds(45));
        engine.check(get("/", "a"));
        engine.check(get("/", "a"));

        Decision d = engine.check(get("/", "a"));

        assertThat(d.allowed()).isFalse();
        assertThat(d.binding().rule().name()).isEqualTo("per-ip");
        assertThat(d.retryAfterMicros()).isEqualTo(15_000_000);
        assertThat(engine.check(get("/", "b")).allowed()).as("other keys are untouched").isTrue();
    }

    @Test
    void missingKeySkipsOrCountsAnonymously() {
        Engine skipping = engine(Rule.builder("user").policy(fixed("1/1m")).key(RequestView::principal).build());
        assertThat(skipping.check(get("/", "a"))).isEqualTo(Decision.NO_RULES);

        Engine anonymous = engine(Rule.builder("user").policy(fixed("1/1m")).key(RequestView::principal)
                .onMissingKey(Rule.MissingKey.ANONYMOUS).build());
        assertThat(anonymous.check(get("/", "a")).allowed()).isTrue();
        assertThat(anonymous.check(get("/", "b")).allowed()).as("all anonymous requests share one key").isFalse();
    }

    @Test
    void tiersPickThePolicyFromTheRequest() {
        Rule.Tiers tiers = new Rule.Tiers(r -> (String) r.attribute("plan"), Map.of("free", fixed("1/1h"), "pro", fixed("3/1h")));
        Engine engine = engine(Rule.builder("plan").policy(fixed("2/1h")).tiers(tiers)
                .key(r -> (String) r.attribute("tenant")).build());
        RequestView free = RequestView.builder("GET", "/").attribute("plan", "free").attribute("tenant", "t1").build();
        RequestView pro = RequestView.builder("GET", "/").attribute("plan", "pro").attribute("tenant", "t2").build();

        assertThat(engine.check(free).binding().outcome().limit()).isEqualTo(1);
        assertThat(engine.check(pro).binding().outcome().limit()).isEqualTo(3);
    }

    @Test
    void shadowRuleReportsButNeverDenies() {
        Engine engine = engine(Rule.builder("trial").policy(fixed("1/1m")).shadow().build());
        engine.check(get("/", "a"));

        Decision d = engine.check(get("/", "a"));

        assertThat(d.allowed()).isTrue();
        assertThat(d.shadowDenied()).isTrue();
    }

    @Test
    void storeFailureAppliesEachRulesFailureMode() {
        Store broken = new Store() {
            @Override
            public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
                throw new StoreException("connection refused");
            }

            @Override
            public void release(List<Lease> leases, long nowMicros) {
                throw new StoreException("connection refused");
            }

            @Override
            public void reset(String rule, String key) {}
        };
        Rule allow = Rule.builder("allow").policy(fixed("1/1m")).build();
        Rule local = Rule.builder("local").policy(fixed("4/1m")).onStoreFailure(Rule.FailureMode.LOCAL).build();
        Rule deny = Rule.builder("deny").policy(fixed("1/1m")).onStoreFailure(Rule.FailureMode.DENY).build();

        Engine allowing = Engine.builder().timeSource(time).store(broken).rule(allow).build();
        assertThat(allowing.check(get("/", "a")).allowed()).isTrue();
        assertThat(allowing.check(get("/", "a")).allowed()).isTrue();

        Engine twoNodes = Engine.builder().timeSource(time).store(broken).rule(local).nodeCount(2).build();
        assertThat(twoNodes.check(get("/", "a")).allowed()).isTrue();
        assertThat(twoNodes.check(get("/", "a")).allowed()).isTrue();
        Decision third = twoNodes.check(get("/", "a"));
        assertThat(third.allowed()).as("this node's share of 4 over 2 nodes is 2").isFalse();
        assertThat(third.storeUnavailable()).as("a local limit denies with 429, not 503").isFalse();

        Decision denied = Engine.builder().timeSource(time).store(broken).rule(deny).build().check(get("/", "a"));
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.storeUnavailable()).isTrue();
    }

    @Test
    void tryAcquireLimitsCallsOutsideHttp() {
        Engine engine = engine();
        Policy twoPerSecond = fixed("2/1s");
        assertThat(engine.tryAcquire("partner-api", "acct-1", twoPerSecond, 1).allowed()).isTrue();
        assertThat(engine.tryAcquire("partner-api", "acct-1", twoPerSecond, 1).allowed()).isTrue();
        Outcome third = engine.tryAcquire("partner-api", "acct-1", twoPerSecond, 1);
        assertThat(third.allowed()).isFalse();
        assertThat(third.retryAfterMicros()).isEqualTo(1_000_000);
        time.advance(Duration.ofSeconds(1));
        assertThat(engine.tryAcquire("partner-api", "acct-1", twoPerSecond, 1).allowed()).isTrue();
    }

    @Test
    void concurrencyLeasesAreReleasedThroughTheDecision() {
        Engine engine = engine(Rule.builder("inflight").policy(Policy.concurrent(1)).build());
        Decision first = engine.check(get("/", "a"));
        assertThat(first.leases()).hasSize(1);
        assertThat(engine.check(get("/", "a")).allowed()).isFalse();
        engine.release(first);
        assertThat(engine.check(get("/", "a")).allowed()).isTrue();
    }

    @Test
    void buildersRefuseANullArgumentNamingIt() {
        assertThatThrownBy(() -> Engine.builder().timeSource(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeSource");
        assertThatThrownBy(() -> Engine.builder().listener(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listener");
        assertThatThrownBy(() -> Engine.builder().rule(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rule");
        assertThatThrownBy(() -> Engine.builder().rules(java.util.Arrays.asList(Rule.builder("a").policy("1/1s").build(),
                null))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rule");
        assertThatThrownBy(() -> MemoryStore.builder().timeSource(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeSource");
    }

    @Test
    void duplicateRuleNamesFailAtBuild() {
        Rule a = Rule.builder("same").policy(fixed("1/1m")).build();
        assertThatThrownBy(() -> engine(a, a)).isInstanceOf(ConfigException.class).hasMessageContaining("unique");
        assertThatThrownBy(() -> Rule.builder("bad name!").policy(fixed("1/1m")).build())
                .isInstanceOf(ConfigException.class).hasMessageContaining("\"bad name!\"");
    }

    @Test
    void inspectShowsAKeysStateWithoutConsumingAndResetUnblocks() {
        Engine engine = engine(Rule.builder("per-ip").policy(fixed("3/1m")).key(RequestView::remoteAddress).build());
        engine.check(get("/", "a"));
        engine.check(get("/", "a"));

        assertThat(engine.inspect("per-ip", "a", null).remaining()).isEqualTo(1);
        assertThat(engine.inspect("per-ip", "a", null).remaining()).as("inspecting consumes nothing").isEqualTo(1);
        engine.reset("per-ip", "a");
        assertThat(engine.inspect("per-ip", "a", null).remaining()).isEqualTo(3);
        assertThatThrownBy(() -> engine.inspect("nope", "a", null)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("\"nope\"");
    }

    @Test
    void aKeyResolverThatThrowsCountsTheRequestUnderOneKeyInsteadOfFailingOrSkipping() {
        Rule byToken = Rule.builder("per-token").policy(fixed("2/1m")).key(r -> {
            String token = r.header("Authorization");
            if (token != null && !token.startsWith("Bearer ")) {
                throw new IllegalArgumentException("malformed token");      // an application's resolver, say
            }
            return token;
        }).build();
        Rule tiered = Rule.builder("tiered").policy(fixed("5/1m")).key(RequestView::remoteAddress)
                .tiers(new Rule.Tiers(r -> { throw new IllegalStateException("no plan"); }, Map.of("pro", fixed("50/1m"))))
                .build();
        Engine engine = engine(byToken, tiered);
        RequestView hostile = RequestView.builder("GET", "/").remoteAddress("a").header("Authorization", "junk").build();

        Decision first = engine.check(hostile);
        assertThat(first.allowed()).isTrue();
        assertThat(first.outcomes()).extracting(o -> o.rule().name()).containsExactly("per-token", "tiered");
        assertThat(first.outcomes().get(1).outcome().limit()).as("a failing tier selector: the rule's own policy")
                .isEqualTo(5);
        engine.check(RequestView.builder("GET", "/").remoteAddress("b").header("Authorization", "other junk").build());
        assertThat(engine.check(hostile).allowed()).as("every such request shares " + Rule.FAILED_KEY).isFalse();
        assertThat(engine.inspect("per-token", Rule.FAILED_KEY, null).remaining()).isZero();
    }

    @Test
    void aResolversKeyOnFailureNamesTheKeyOfTheRequestsItFailsOn() {
        RequestView request = RequestView.builder("GET", "/").remoteAddress("198.51.100.7").build();
        assertThat(Rule.builder("r").policy(fixed("1/1m")).key(failing(r -> "mine")).build().resolveKey(request))
                .isEqualTo("mine");
        assertThat(Rule.builder("r").policy(fixed("1/1m")).key(failing(r -> null)).build().resolveKey(request))
                .as("null: the shared key").isEqualTo(Rule.FAILED_KEY);
        assertThat(Rule.builder("r").policy(fixed("1/1m")).key(failing(r -> {
            throw new IllegalStateException("again");
        })).build().resolveKey(request)).as("throwing too: the shared key").isEqualTo(Rule.FAILED_KEY);
    }

    /** @return a resolver that always throws, whose {@code keyOnFailure} is {@code onFailure} */
    private static KeyResolver failing(java.util.function.Function<RequestView, String> onFailure) {
        return new KeyResolver() {
            @Override
            public String resolve(RequestView request) {
                throw new IllegalArgumentException("malformed token");
            }

            @Override
            public String keyOnFailure(RequestView request) {
                return onFailure.apply(request);
            }
        };
    }

    @Test
    void aKeyFromConfigurationCountsTheRequestsItFailsOnPerClient() {
        KeyResolver token = KeyResolvers.parse("key", "token", ClientIpResolver.direct(), Map.of("token", r -> {
            throw new IllegalArgumentException("malformed token");
        }));
        Engine engine = engine(Rule.builder("per-token").policy(fixed("1/1m")).key(token).build());
        RequestView attacker = RequestView.builder("GET", "/").remoteAddress("198.51.100.7").build();
        RequestView other = RequestView.builder("GET", "/").remoteAddress("203.0.113.9").build();

        assertThat(engine.check(attacker).allowed()).isTrue();
        assertThat(engine.check(attacker).allowed()).as("the failing client's own share is used up").isFalse();
        assertThat(engine.check(other).allowed()).as("another client's failing requests have a share of their own")
                .isTrue();
        assertThat(engine.inspect("per-token", Rule.FAILED_KEY + "|198.51.100.7", null).remaining()).isZero();
    }

    /**
     * A memory store that runs {@code between} once, just before the second store call after {@link #arm}: the
     * moment between a count-by-outcome rule's first look (cost 0) and the request's all-or-nothing call.
     */
    private static final class BetweenCalls extends ForwardingStore {
        private Runnable between;
        private int calls;

        BetweenCalls(MemoryStore memory) {
            super(memory);
        }

        void arm(Runnable between) {
            this.between = between;
            this.calls = 0;
        }

        @Override
        protected void beforeEvaluate(List<Check> checks) {
            if (between != null && ++calls == 2) {
                between.run();
                between = null;
            }
        }
    }

    private static Rule failedLogins() {
        return Rule.builder("failed-logins").policy(fixed("2/1m")).key(RequestView::remoteAddress)
                .countStatuses(Set.of(401)).build();
    }

    @Test
    void aCountedRuleThatGetsRoomBetweenItsLookAndItsCheckIsChargedOnce() {
        BetweenCalls store = new BetweenCalls(MemoryStore.builder().timeSource(time).build());
        Engine engine = Engine.builder().timeSource(time).store(store).rule(failedLogins()).build();
        for (int i = 0; i < 2; i++) {
            RequestView attempt = get("/sign-in", "a");
            engine.charge(attempt, engine.check(attempt), 401);
        }
        assertThat(engine.inspect("failed-logins", "a", null).remaining()).as("two failures fill 2/1m").isZero();

        store.arm(() -> store.reset("failed-logins", "a"));      // an admin unblocks the key meanwhile
        RequestView attempt = get("/sign-in", "a");
        Decision d = engine.check(attempt);
        assertThat(d.allowed()).isTrue();
        assertThat(d.outcomes().get(0).chargedAtCheck()).as("its full-cost check consumed").isTrue();
        engine.charge(attempt, d, 401);

        assertThat(engine.inspect("failed-logins", "a", null).remaining())
                .as("the failure is counted once, not at the check and again at completion").isEqualTo(1);
    }

    @Test
    void aRequestDeniedByAnotherCountedRuleConsumesNothingFromOneThatGotRoomMeanwhile() {
        BetweenCalls store = new BetweenCalls(MemoryStore.builder().timeSource(time).build());
        Rule perHour = Rule.builder("failed-logins-hourly").policy(fixed("2/1h")).key(RequestView::remoteAddress)
                .countStatuses(Set.of(401)).build();
        Engine engine = Engine.builder().timeSource(time).store(store).rules(List.of(failedLogins(), perHour)).build();
        for (int i = 0; i < 2; i++) {
            RequestView attempt = get("/sign-in", "a");
            engine.charge(attempt, engine.check(attempt), 401);
        }
        assertThat(engine.inspect("failed-logins", "a", null).remaining()).isZero();
        assertThat(engine.inspect("failed-logins-hourly", "a", null).remaining()).isZero();

        store.arm(() -> store.reset("failed-logins", "a"));
        Decision d = engine.check(get("/sign-in", "a"));

        assertThat(d.allowed()).isFalse();
        assertThat(d.binding().rule().name()).isEqualTo("failed-logins-hourly");
        assertThat(d.outcomes()).noneMatch(RuleOutcome::chargedAtCheck);
        assertThat(engine.inspect("failed-logins", "a", null).remaining())
                .as("checked with the rule that denied, all or nothing: a denied request consumes nothing").isEqualTo(2);
    }

    @Test
    void aDeniedAttemptIsNotCountedByASlidingLogThatCountsRejections() {
        Rule log = Rule.builder("hammering").policy(PolicyParser.parse("limit", "5/1h count-rejected", Algorithm.SLIDING_LOG)).key(RequestView::remoteAddress).build();
        Engine engine = engine(failedLogins(), log);
        for (int i = 0; i < 2; i++) {
            RequestView attempt = get("/sign-in", "a");
            engine.charge(attempt, engine.check(attempt), 401);
        }
        assertThat(engine.inspect("hammering", "a", null).remaining()).isEqualTo(3);

        for (int i = 0; i < 3; i++) {
            Decision d = engine.check(get("/sign-in", "a"));
            assertThat(d.allowed()).isFalse();
            assertThat(d.binding().rule().name()).isEqualTo("failed-logins");
        }

        assertThat(engine.inspect("hammering", "a", null).remaining())
                .as("the other rules only looked at the attempts the counted rule denied").isEqualTo(3);
    }

    @Test
    void aCountedRuleWithoutRoomDeniesWithItsRetryAfterAndTheOtherRulesConsumeNothing() {
        Rule perIp = Rule.builder("per-ip").policy(fixed("10/1m")).key(RequestView::remoteAddress).build();
        Engine engine = engine(failedLogins(), perIp);
        time.advance(Duration.ofSeconds(20));
        for (int i = 0; i < 2; i++) {
            RequestView attempt = get("/sign-in", "a");
            engine.charge(attempt, engine.check(attempt), 401);
        }
        assertThat(engine.inspect("per-ip", "a", null).remaining()).isEqualTo(8);

        Decision d = engine.check(get("/sign-in", "a"));

        assertThat(d.allowed()).isFalse();
        assertThat(d.binding().rule().name()).isEqualTo("failed-logins");
        assertThat(d.retryAfterMicros()).isEqualTo(40_000_000);
        assertThat(engine.inspect("per-ip", "a", null).remaining()).isEqualTo(8);
        assertThat(engine.inspect("failed-logins", "a", null).remaining()).isZero();
    }

    /**
     * A front door that refuses to queue a request admitted after a delay (its queue full): the listeners see that
     * denial once, not the admission, and the leases the admitted decision held are released.
     */
    @Test
    void aRequestTheQueueGateRefusesIsReportedAsDeniedOnceAndHoldsNoLease() {
        List<DecisionListener.Event> events = new java.util.ArrayList<>();
        List<Decision> seen = new java.util.ArrayList<>();
        Engine engine = Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build())
                .rule(Rule.builder("queue").policy("1/1m burst 2 max-wait 5m").key(RequestView::remoteAddress).build())
                .rule(Rule.builder("in-flight").policy(Policy.concurrent(1)).key(request -> "global").build())
                .listener((request, decision, event) -> {
                    events.add(event);
                    seen.add(decision);
                })
                .build();
        List<Decision> asked = new java.util.ArrayList<>();
        Engine.QueueGate full = (request, admitted) -> {
            asked.add(admitted);
            Outcome o = admitted.binding().outcome();
            return Decision.of(List.of(new RuleOutcome(admitted.binding().rule(), admitted.binding().policy(),
                    Outcome.deny(o.limit(), o.remaining(), o.resetAfterMicros(), admitted.delayMicros()),
                    RuleOutcome.Source.STORE)), List.of(), admitted.atMicros());
        };

        Decision first = engine.check(get("/", "1.2.3.4"), engine.rules(), full);
        engine.release(first);
        Decision refused = engine.check(get("/", "1.2.3.4"), engine.rules(), full);

        assertThat(first.allowed()).as("its turn now: the gate is not asked").isTrue();
        assertThat(asked).singleElement().satisfies(admitted -> {
            assertThat(admitted.allowed()).isTrue();
            assertThat(admitted.delayMicros()).isEqualTo(60_000_000);
            assertThat(admitted.leases()).hasSize(1);
        });
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfterMicros()).isEqualTo(60_000_000);
        assertThat(events).containsExactly(DecisionListener.Event.ALLOWED, DecisionListener.Event.DENIED);
        assertThat(seen.get(1)).isSameAs(refused);
        assertThat(engine.inspect("in-flight", "global", null).remaining()).as("the refused request's lease released")
                .isEqualTo(1);

        Decision queued = engine.check(get("/", "5.6.7.8"), engine.rules(), (request, admitted) -> admitted);
        assertThat(queued.allowed()).as("another client, its turn now").isTrue();
        engine.release(queued);
        Decision waits = engine.check(get("/", "5.6.7.8"), engine.rules(), (request, admitted) -> admitted);
        assertThat(waits.delayMicros()).as("queued: the gate answered the admission itself").isEqualTo(60_000_000);
        assertThat(waits.leases()).hasSize(1);
        assertThat(events).endsWith(DecisionListener.Event.ALLOWED, DecisionListener.Event.ALLOWED);
    }

    /**
     * A shadow queue ({@code max-wait}) whose bucket fills up holds no request: the decision's delay is the enforced
     * rules' alone, the front door's queue gate is never asked, the concurrency lease is kept, and listeners see the
     * request as allowed with the wait it would have had ({@link Decision#shadowDelayMicros()}).
     */
    @Test
    void aShadowQueueDelaysNoRequestAndReportsTheWaitItWouldHaveImposed() {
        List<DecisionListener.Event> events = new java.util.ArrayList<>();
        Engine engine = Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build())
                .rule(Rule.builder("trial-queue").policy("1/1s burst 10 max-wait 1m").key(RequestView::remoteAddress)
                        .shadow().build())
                .rule(Rule.builder("in-flight").policy(Policy.concurrent(5)).key(request -> "global").build())
                .listener((request, decision, event) -> events.add(event))
                .build();
        List<Decision> asked = new java.util.ArrayList<>();
        Engine.QueueGate gate = (request, admitted) -> {
            asked.add(admitted);
            return admitted;
        };

        List<Decision> decisions = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {                   // at one instant: each would wait one second more
            decisions.add(engine.check(get("/", "1.2.3.4"), engine.rules(), gate));
        }

        assertThat(decisions).allSatisfy(d -> {
            assertThat(d.allowed()).isTrue();
            assertThat(d.delayMicros()).as("held by nobody").isZero();
            assertThat(d.leases()).as("its lease kept").hasSize(1);
            assertThat(d.shadowDenied()).isFalse();
        });
        assertThat(decisions).extracting(Decision::shadowDelayMicros)
                .containsExactly(0L, 1_000_000L, 2_000_000L, 3_000_000L);
        assertThat(decisions.get(3).outcomes().get(0).outcome().delayMicros()).as("the shadow rule's own outcome")
                .isEqualTo(3_000_000);
        assertThat(asked).as("no request to queue: the gate is not asked").isEmpty();
        assertThat(events).containsOnly(DecisionListener.Event.ALLOWED);
        assertThat(engine.inspect("in-flight", "global", null).remaining()).as("four requests in flight").isEqualTo(1);
        decisions.forEach(engine::release);
        assertThat(engine.inspect("in-flight", "global", null).remaining()).isEqualTo(5);
    }

    /**
     * Beside a shadow queue with a longer line, an enforced queue's wait is the request's, as without it; and a gate
     * that refuses to queue it denies it by the enforced rule, never by the shadow one, the lease released.
     */
    @Test
    void anEnforcedQueueKeepsItsDelayBesideALongerShadowQueue() {
        Engine engine = Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build())
                .rule(Rule.builder("trial-queue").policy("1/1s burst 10 max-wait 1m").key(RequestView::remoteAddress)
                        .shadow().build())
                .rule(Rule.builder("queue").policy("2/1s burst 10 max-wait 1m").key(RequestView::remoteAddress).build())
                .rule(Rule.builder("in-flight").policy(Policy.concurrent(5)).key(request -> "global").build())
                .build();
        engine.release(engine.check(get("/", "1.2.3.4")));

        Decision second = engine.check(get("/", "1.2.3.4"));
        assertThat(second.delayMicros()).as("the enforced queue's turn: 500 ms").isEqualTo(500_000);
        assertThat(second.shadowDelayMicros()).as("the shadow queue's would-be turn").isEqualTo(1_000_000);
        engine.release(second);
    }

    /**
     * A queue gate answers the admitted decision itself or a denial: anything else (an allowed decision in its place,
     * or an exception) would let the request pass without the leases its admission took, or leave them held by
     * nobody. The engine refuses it, and releases the leases.
     */
    @Test
    void aQueueGateThatAnswersAnotherAllowedDecisionOrThrowsLeavesNoLeaseHeld() {
        Engine engine = Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build())
                .rule(Rule.builder("queue").policy("1/1m burst 5 max-wait 5m").key(request -> "global").build())
                .rule(Rule.builder("in-flight").policy(Policy.concurrent(1)).key(request -> "global").build())
                .build();
        engine.release(engine.check(get("/", "1.2.3.4")));                     // its turn now: the gate is not asked

        assertThatThrownBy(() -> engine.check(get("/", "1.2.3.4"), engine.rules(),
                (request, admitted) -> Decision.of(admitted.outcomes().subList(0, 1), List.of(), admitted.atMicros())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("a queue gate answers the admitted decision itself or a denial, got an allowed decision "
                        + "delayed 60000000 us");
        assertThat(engine.inspect("in-flight", "global", null).remaining()).isEqualTo(1);

        assertThatThrownBy(() -> engine.check(get("/", "1.2.3.4"), engine.rules(), (request, admitted) -> {
            throw new IllegalArgumentException("the gate failed");
        })).hasMessage("the gate failed");
        assertThat(engine.inspect("in-flight", "global", null).remaining()).isEqualTo(1);
    }
}
