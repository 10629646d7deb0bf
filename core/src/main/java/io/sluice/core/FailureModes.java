package io.sluice.core;

import io.sluice.core.internal.LogThrottle;
import io.sluice.core.log.LogText;
import io.sluice.core.store.CircuitBreaker;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Says loudly when rules answer by their failure modes because the store fails, and when they are back on it: the
 * circuit breaker's {@link CircuitBreaker.Listener}, and the {@link StoreHealth} that the admin status, the metrics and
 * a health check read.
 *
 * <p>When the breaker opens, at the first decision then answered by failure mode, one ERROR line names the rules in
 * force and that decision's by what each does until the store answers: unlimited ({@code allow}), refusing with a 503
 * ({@code deny}), or on this node's share ({@code local}). A rule not in force then (a JAX-RS annotation's) or a named
 * limit of the programmatic API, first answered by its failure mode later in the outage, is named in an ERROR line of
 * its own: at most one a minute, naming every one since the last. When the breaker closes, one INFO line says how long
 * the store failed and how many decisions the failure modes answered meanwhile. Nothing is logged per request. Times
 * are the engine's clock's.
 *
 * <p>Thread-safe: the breaker reports its transitions one at a time, in their order; a decision is counted without a
 * lock, and each line of an outage is written once, under the outage's lock, never after the line that ends it.
 */
final class FailureModes implements CircuitBreaker.Listener {

    /** Logs under the engine's name, the one operators configure. */
    private static final System.Logger LOG = System.getLogger(Engine.class.getName());
    /** The most names one line lists for a mode: {@value}; the others are counted. */
    static final int MAX_LOGGED_NAMES = 50;

    private final String store;
    private final int nodeCount;
    private final long coolDownMicros;
    private final Supplier<List<Rule>> inForce;
    /** Decisions answered by failure modes since the engine was built. */
    private final LongAdder decisions = new LongAdder();
    /** Names first answered by failure mode after the outage began: one line a minute at most. */
    private final LogThrottle laterLines = new LogThrottle(60_000_000);
    /** The current outage; null while the store answers. Set and cleared by the breaker's transitions. */
    private volatile Outage outage;

    /**
     * @param store names the store in the log, such as {@code RedisStore}
     * @param nodeCount the share of a rule that falls back locally is {@code limit / nodeCount}
     * @param coolDownMicros the breaker's cool-down: one probe each such time while the store fails
     * @param inForce the rules in force, named when the store begins to fail (read on a request's thread, not under the
     *     breaker's lock: a front door's may reload its rules file)
     */
    FailureModes(String store, int nodeCount, long coolDownMicros, Supplier<List<Rule>> inForce) {
        this.store = store;
        this.nodeCount = nodeCount;
        this.coolDownMicros = coolDownMicros;
        this.inForce = inForce;
    }

    /** One outage: from the breaker's opening to its closing. */
    private static final class Outage {
        final long sinceMicros;
        final long decisionsBefore;
        final int failures;
        /** The last failure's {@link LogText#summary}. */
        final String cause;
        final Map<String, Rule.FailureMode> named = new ConcurrentHashMap<>();
        /** The names in the order they were named. */
        final Queue<String> order = new ConcurrentLinkedQueue<>();
        /** The names named after the outage was announced, not logged yet. */
        final Queue<String> unlogged = new ConcurrentLinkedQueue<>();
        /** Whether its ERROR line was logged; guarded by this outage, read without it. */
        volatile boolean announced;
        /** Whether the breaker closed; guarded by this outage. */
        boolean over;

        Outage(long sinceMicros, long decisionsBefore, int failures, String cause) {
            this.sinceMicros = sinceMicros;
            this.decisionsBefore = decisionsBefore;
            this.failures = failures;
            this.cause = cause;
        }

        /** @return whether {@code name} was named now (not before, and fewer than the most names) */
        boolean name(String name, Rule.FailureMode mode) {
            if (named.containsKey(name) || named.size() >= StoreHealth.MAX_NAMES
                    || named.putIfAbsent(name, mode) != null) {
                return false;
            }
            order.add(name);
            if (announced) {
                unlogged.add(name);
            }
            return true;
        }

        /** @return the names of {@code names} (all of them when null), by mode, each mode in the order named */
        Map<Rule.FailureMode, List<String>> byMode(Iterable<String> names) {
            Map<Rule.FailureMode, List<String>> modes = new EnumMap<>(Rule.FailureMode.class);
            for (String name : names == null ? order : names) {
                modes.computeIfAbsent(named.get(name), m -> new ArrayList<>()).add(name);
            }
            return modes;
        }
    }

    /**
     * The store begins to fail. The ERROR line waits for the first decision answered by failure mode (the one whose
     * call opened the breaker, most often), on its own thread: it names the rules in force then, and that decision's.
     */
    @Override
    public void opened(long nowMicros, int failures, Throwable cause) {
        outage = new Outage(nowMicros, decisions.sum(), failures, LogText.summary(cause));
    }

    @Override
    public void closed(long nowMicros, long openedAtMicros) {
        Outage o = outage;
        outage = null;
        if (o == null) {
            return;
        }
        synchronized (o) {
            o.over = true;
            if (!o.announced) {
                return;         // no decision was answered by failure mode: nothing was said, nothing to take back
            }
        }
        long answered = decisions.sum() - o.decisionsBefore;
        LOG.log(Level.INFO, "rate-limit store " + store + " answers again after " + duration(nowMicros - o.sinceMicros)
                + " failing (since " + instant(o.sinceMicros) + "); " + answered + " decision"
                + (answered == 1 ? " was" : "s were") + " answered by failure mode meanwhile"
                + (o.order.isEmpty() ? "" : "; back on the store: " + describe(o.byMode(null), true)));
    }

    /** Counts a request's decision answered by failure modes, and names its rules not named yet in this outage. */
    void answered(List<Rule> applied, long nowMicros) {
        decisions.increment();
        Outage o = outage;
        if (o != null) {        // else a single failed call: the store is not failing for it
            tell(o, nowMicros, outage -> applied.forEach(r -> outage.name(r.name(), r.onStoreFailure())));
        }
    }

    /** Counts a call of the programmatic API answered by {@code mode}, and names its limit when not named yet. */
    void answered(String limit, Rule.FailureMode mode, long nowMicros) {
        decisions.increment();
        Outage o = outage;
        if (o != null) {
            tell(o, nowMicros, outage -> outage.name(limit, mode));
        }
    }

    /**
     * Announces the outage once, naming the rules in force and those {@code naming} names; after that, names them and
     * logs the names not announced, at most one line a minute.
     */
    private void tell(Outage o, long nowMicros, Consumer<Outage> naming) {
        if (!o.announced) {
            List<Rule> rules = inForce.get();        // not under the lock: a front door's may reload its rules file
            synchronized (o) {
                if (!o.announced) {
                    if (!o.over) {
                        name(o, rules);
                        naming.accept(o);
                        announce(o);
                        o.announced = true;     // names named from now on are logged later
                    }
                    return;
                }
            }
        }
        naming.accept(o);
        if (o.unlogged.isEmpty() || laterLines.pass(nowMicros) == null) {
            return;
        }
        List<String> names = new ArrayList<>();
        for (String name = o.unlogged.poll(); name != null; name = o.unlogged.poll()) {
            names.add(name);
        }
        synchronized (o) {
            if (!names.isEmpty() && !o.over) {      // never after the line that says the store answers again
                LOG.log(Level.ERROR, "rate-limit store " + store + " still failing (since " + instant(o.sinceMicros)
                        + "); now also answering by failure mode: " + describe(o.byMode(names), false)
                        + " (such lines at most once a minute)");
            }
        }
    }

    private void announce(Outage o) {
        LOG.log(Level.ERROR, "rate-limit store " + store + " failing since " + instant(o.sinceMicros) + " ("
                + o.failures + " consecutive failure" + (o.failures == 1 ? "" : "s") + ", the last: "
                + o.cause + "); until it answers again (one probe every " + duration(coolDownMicros)
                + ") each rule answers by its on-store-failure mode: " + describe(o.byMode(null), false));
    }

    /** Names {@code rules} (those in force, named first: the order of the lines and of {@link #health()}). */
    private static void name(Outage o, List<Rule> rules) {
        rules.forEach(r -> o.name(r.name(), r.onStoreFailure()));
    }

    /** @return where the store stands now */
    StoreHealth health() {
        Outage o = outage;
        if (o != null && !o.announced) {
            List<Rule> rules = inForce.get();
            synchronized (o) {
                if (!o.announced) {
                    name(o, rules);         // the breaker opened, and no decision was answered by failure mode yet
                }
            }
        }
        long total = decisions.sum();
        return o == null ? StoreHealth.whenUp(total)
                : StoreHealth.whenFailing(o.sinceMicros, o.byMode(null), total - o.decisionsBefore, total);
    }

    /** @return the names by mode, as a log line gives them: {@code unlimited (allow): a, b; refusing ...} */
    private String describe(Map<Rule.FailureMode, List<String>> modes, boolean past) {
        StringBuilder text = new StringBuilder();
        for (Map.Entry<Rule.FailureMode, List<String>> m : modes.entrySet()) {
            List<String> names = m.getValue();
            text.append(text.length() == 0 ? "" : "; ").append(past ? "were " : "").append(switch (m.getKey()) {
                case ALLOW -> "unlimited (allow): ";
                case DENY -> "refusing with 503 (deny): ";
                case LOCAL -> "on this node's share (local, " + (nodeCount == 1 ? "node-count 1: the whole limit"
                        : "limit / " + nodeCount) + "): ";
            });
            for (int i = 0; i < Math.min(names.size(), MAX_LOGGED_NAMES); i++) {
                text.append(i == 0 ? "" : ", ").append(LogText.safe(names.get(i)));
            }
            if (names.size() > MAX_LOGGED_NAMES) {
                text.append(" and ").append(names.size() - MAX_LOGGED_NAMES).append(" more");
            }
        }
        return text.toString();
    }

    /** @return epoch microseconds as an ISO-8601 instant */
    static String instant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1_000L)
                .toString();
    }

    /** @return a duration for a log line: {@code 850 ms}, {@code 42 s}, {@code 12 min 5 s}, {@code 3 h 2 min} */
    static String duration(long micros) {
        long ms = Math.max(0, micros) / 1_000;
        if (ms < 10_000) {
            return ms + " ms";
        }
        long s = ms / 1_000;
        if (s < 120) {
            return s + " s";
        }
        return s < 36_000 ? s / 60 + " min " + s % 60 + " s" : s / 3_600 + " h " + s % 3_600 / 60 + " min";
    }
}
