package io.sluice.core.testing;

import io.sluice.core.Decision;
import io.sluice.core.Engine;
import io.sluice.core.Rule;
import io.sluice.core.RuleOutcome;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.ConcurrencySettings;
import io.sluice.core.policy.FixedWindowSettings;
import io.sluice.core.policy.GcraSettings;
import io.sluice.core.policy.LeakyBucketSettings;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Settings;
import io.sluice.core.policy.SlidingLogSettings;
import io.sluice.core.policy.TokenBucketSettings;
import io.sluice.core.policy.WarmUpSettings;
import io.sluice.core.request.RequestView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;

/**
 * Seeded random timelines of requests replayed through several engines on one manual clock: the engine of reference
 * and the engines under test, each over a store of its own, must answer every request alike. A rule's request (one to
 * three rules at random costs, some of them shadow, on the client's key or on one global key) is compared by its
 * decision, its binding rule, that rule's outcome field for field, and its delay; a call of the programmatic API by
 * its outcome. Leases taken are released later, some as failures (adaptive concurrency learns from them). Every
 * algorithm; policies of a second to a day.
 *
 * <p>A failure names the seed ({@code -Dsluice.seed=...} replays it), the timeline, the step, the time, the request and
 * both answers.
 */
public final class EngineDifferential {

    /** How the clock moves between requests. */
    public enum Clock {
        /** Forwards only: not at all, a little, up to a few intervals, up to two periods. */
        FORWARD,
        /** As {@link #FORWARD}, or back by up to a minute from the latest time: the slack both stores keep state for. */
        STEPS_BACK
    }

    /** An engine under test, with the name a failure gives it. */
    public record Candidate(String name, Engine engine) {}

    /** What is compared of a rule's request: see the class comment. */
    private record Answer(boolean allowed, String binding, Outcome outcome, long delayMicros) {
        static Answer of(Decision d) {
            RuleOutcome b = d.binding();
            return new Answer(d.allowed(), b == null ? null : b.rule().name(), b == null ? null : b.outcome(),
                    d.delayMicros());
        }
    }

    private static final long MINUTE = 60_000_000;
    private static final String CRITICAL = "io.sluice.critical";

    private final long seed;
    private final Random random;
    private final ManualTimeSource clock;
    private final Engine reference;
    private final List<Candidate> candidates;
    private long denials;
    private long requests;
    /** The timeline and step being replayed, for a failure's message. */
    private String at;

    /**
     * @param reference the engine whose answers are right: the memory store, its denial cache off
     * @param candidates the engines held to it, on {@code clock} too
     */
    public EngineDifferential(long seed, ManualTimeSource clock, Engine reference, List<Candidate> candidates) {
        this.seed = seed;
        this.random = new Random(seed);
        this.clock = clock;
        this.reference = reference;
        this.candidates = List.copyOf(candidates);
    }

    /** @return the seed: {@code -Dsluice.seed}, else a fresh one */
    public static long seed() {
        return Long.getLong("sluice.seed", System.nanoTime());
    }

    /** @return how many requests the reference denied so far */
    public long denials() {
        return denials;
    }

    /** @return how many requests and calls were compared so far */
    public long requests() {
        return requests;
    }

    /**
     * Replays one timeline of {@code steps} requests, calls and releases from the clock's time on. A rule of {@code main}
     * takes part in every request, sometimes with rules of other algorithms.
     *
     * @param names the start of its rules' names: unique to the timeline where stores outlive it
     */
    public void replay(Algorithm main, String names, int steps, Clock mode) {
        List<Policy> policies = new ArrayList<>(List.of(policy(random, main)));
        for (int i = random.nextInt(3); i > 0; i--) {
            Algorithm[] all = Algorithm.values();
            policies.add(policy(random, all[random.nextInt(all.length)]));
        }
        boolean[] global = new boolean[policies.size()];
        for (int r = 1; r < global.length; r++) {
            global[r] = random.nextBoolean();
        }
        long period = policies.get(0).periodMicros();
        long now = clock.nowMicros();
        long latest = now;
        List<Decision[]> held = new ArrayList<>();
        for (int step = 0; step < steps; step++) {
            now = mode == Clock.STEPS_BACK ? next(random, now, latest, period) : now + gap(random, policies.get(0));
            latest = Math.max(latest, now);
            clock.set(now);
            at = names + " (" + mode + "), step " + step;
            if (!held.isEmpty() && random.nextInt(4) == 0) {
                release(held.remove(random.nextInt(held.size())));
            } else if (!policies.get(0).algorithm().concurrent() && random.nextInt(4) == 0) {
                call(names + "api", "k" + random.nextInt(3), policies.get(0));
            } else {
                Decision[] decisions = request(names, policies, global);
                if (decisions != null) {
                    held.add(decisions);
                }
            }
        }
        for (Decision[] d : held) {
            release(d);
        }
        clock.set(latest);      // the next timeline starts from the latest time, not behind it
    }

    /** @return the decisions, one per engine, when they hold leases to release later; else null */
    private Decision[] request(String names, List<Policy> policies, boolean[] global) {
        String key = "k" + random.nextInt(3);
        List<Rule> rules = new ArrayList<>();
        for (int r = 0; r < policies.size(); r++) {
            if (r > 0 && random.nextInt(4) == 0) {
                continue;
            }
            Policy p = policies.get(r);
            String kind = global[r] ? "global" : "key";
            Rule.Builder rule = Rule.builder(names + "-r" + r).policy(p).cost(cost(random, p))
                    .key(request -> (String) request.attribute(kind));
            rules.add((r > 0 && random.nextInt(5) == 0 ? rule.shadow() : rule).build());
        }
        RequestView request = RequestView.builder("GET", "/").attribute("key", key).attribute("global", "all")
                .attribute(CRITICAL, random.nextInt(4) == 0).build();
        requests++;
        Decision expected = reference.check(request, rules);
        denials += expected.allowed() ? 0 : 1;
        Decision[] decisions = new Decision[candidates.size() + 1];
        decisions[0] = expected;
        for (int i = 0; i < candidates.size(); i++) {
            Decision actual = candidates.get(i).engine().check(request, rules);
            decisions[i + 1] = actual;
            if (!Answer.of(actual).equals(Answer.of(expected))) {
                throw new AssertionError(candidates.get(i).name() + ", " + where() + ": " + describe(rules)
                        + "\n expected " + Answer.of(expected) + "\n but was  " + Answer.of(actual));
            }
        }
        if (Arrays.stream(decisions).allMatch(d -> d.leases().isEmpty())) {
            return null;
        }
        return decisions;
    }

    private void call(String name, String key, Policy policy) {
        long cost = cost(random, policy);
        requests++;
        Outcome expected = reference.tryAcquire(name, key, policy, cost);
        denials += expected.allowed() ? 0 : 1;
        for (Candidate c : candidates) {
            Outcome actual = c.engine().tryAcquire(name, key, policy, cost);
            if (!Objects.equals(actual, expected)) {
                throw new AssertionError(c.name() + ", " + where() + ": tryAcquire(" + name + ", " + key + ", " + policy
                        + ", cost " + cost + ")\n expected " + expected + "\n but was  " + actual);
            }
        }
    }

    private void release(Decision[] decisions) {
        int status = random.nextInt(5) == 0 ? 503 : 200;
        reference.release(decisions[0], status);
        for (int i = 0; i < candidates.size(); i++) {
            candidates.get(i).engine().release(decisions[i + 1], status);
        }
    }

    /** @return where the timeline is: its seed, name, clock, step and time */
    private String where() {
        return "seed " + seed + " (-Dsluice.seed=" + seed + "), timeline " + at + " at "
                + (clock.nowMicros() - ManualTimeSource.START_MICROS) + " µs";
    }

    private static String describe(List<Rule> rules) {
        StringBuilder out = new StringBuilder();
        for (Rule r : rules) {
            out.append(out.length() == 0 ? "" : ", ").append(r.name()).append(r.shadow() ? " (shadow) " : " ")
                    .append(r.policy()).append(" cost ").append(r.cost());
        }
        return out.toString();
    }

    /** The clock's next time forwards: not at all, a little, up to a few intervals, up to two periods. */
    public static long gap(Random random, Policy p) {
        long interval = Math.max(1, p.periodMicros() / p.limit());
        return switch (random.nextInt(6)) {
            case 0 -> 0;
            case 1 -> random.nextInt(1000);
            case 2, 3 -> (long) (random.nextDouble() * interval);
            case 4 -> (long) (random.nextDouble() * 3 * interval);
            default -> (long) (random.nextDouble() * 2 * p.periodMicros());
        };
    }

    /** The clock's next time: forwards (nothing, a little, up to three periods) or back by up to a minute. */
    public static long next(Random random, long now, long latest, long period) {
        return switch (random.nextInt(10)) {
            case 0 -> latest - MINUTE;                                                 // back by a whole minute
            case 1 -> latest - 1 - (long) (random.nextDouble() * MINUTE);              // back by up to a minute
            case 2 -> Math.max(latest - MINUTE, now - 1 - random.nextInt(3_000_000));  // back by up to 3 s
            case 3 -> now;
            case 4, 5 -> now + random.nextInt(1_000);
            case 6, 7 -> now + (long) (random.nextDouble() * period);
            default -> now + (long) (random.nextDouble() * 3 * period);
        };
    }

    /** A request's cost: mostly 1, sometimes 0, 2 to 4, or above the capacity. */
    public static long cost(Random random, Policy p) {
        return switch (random.nextInt(12)) {
            case 0 -> 0;
            case 1 -> p.capacity() + 1 + random.nextInt(3);
            case 2, 3 -> 1 + random.nextInt((int) Math.min(4, p.capacity()));
            default -> 1;
        };
    }

    /** A random policy of {@code algorithm}: small and larger limits, periods of a second to a day, random settings. */
    public static Policy policy(Random random, Algorithm algorithm) {
        long limit = 1 + random.nextInt(random.nextBoolean() ? 5 : 40);
        long period = switch (random.nextInt(5)) {
            case 0 -> 1_000_000;
            case 1 -> 7_000_333;
            case 2 -> 60_000_000;
            case 3 -> random.nextInt(4) == 0 ? 86_400_000_000L : 250_000 + random.nextInt(3_000_000);
            default -> 250_000 + random.nextInt(3_000_000);
        };
        Policy p = switch (algorithm) {
            case CONCURRENCY -> Policy.concurrent(limit)
                    .withSettings(new ConcurrencySettings((200 + random.nextInt(5_000)) * 1_000L));
            case ADAPTIVE_CONCURRENCY -> Policy.parse(limit + " concurrent adaptive max " + (limit + random.nextInt(40))
                    + " lease " + (1 + random.nextInt(5)) + "s");
            default -> Policy.of(algorithm, limit, Duration.ofNanos(period * 1000));
        };
        return p.withSettings(settings(random, p, period));
    }

    /** Random settings of {@code p}'s algorithm, for a policy of {@code period} µs. */
    private static Settings settings(Random random, Policy p, long period) {
        return switch (p.algorithm()) {
            case TOKEN_BUCKET -> new TokenBucketSettings(random.nextBoolean() ? 0 : 1 + random.nextInt(20));
            case GCRA -> new GcraSettings(random.nextBoolean() ? 0 : 1 + random.nextInt(20));
            case LEAKY_BUCKET -> {
                long burst = random.nextBoolean() ? 0 : 1 + random.nextInt(20);
                yield random.nextBoolean()
                        ? new LeakyBucketSettings(burst, (1 + random.nextInt(3_000)) * 1_000L, random.nextInt(3))
                        : new LeakyBucketSettings(burst, 0, 0);
            }
            case SLIDING_LOG -> new SlidingLogSettings(random.nextBoolean() ? 0
                    : random.nextInt((int) Math.min(Integer.MAX_VALUE, period * 2)), random.nextBoolean());
            case WARM_UP -> new WarmUpSettings((100 + random.nextInt(5_000)) * 1_000L, 1 + random.nextInt(4));
            case FIXED_WINDOW -> new FixedWindowSettings(random.nextBoolean());
            default -> p.settings();
        };
    }
}
