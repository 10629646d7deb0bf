package io.sluice.http;

import io.sluice.core.Decision;
import io.sluice.core.DecisionListener;
import io.sluice.core.request.RequestView;
import io.sluice.core.RuleOutcome;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.time.TimeSource;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Reports what shadow rules would have done: the requests they would have denied, and those a shadow queue
 * ({@code max-wait}) would have delayed, which passed at once ({@link Decision#shadowDelayMicros()}). The first such
 * request is logged at once, then at most one line per {@value #INTERVAL_MICROS} µs with the count per rule (and per
 * queue its longest wait), so a shadow rollout shows its effect without flooding the log:
 * {@code shadow mode: would have denied {trial=3} and delayed {queue=5 (up to 800ms)} request(s) in the last 60 s}.
 */
final class ShadowReport implements DecisionListener {

    /** At most one report per minute: {@value} µs. */
    static final long INTERVAL_MICROS = 60_000_000;
    private static final System.Logger LOG = System.getLogger(ShadowReport.class.getName());

    private final TimeSource time;
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    /** Per shadow queue, the requests it would have delayed since the last report and the longest of those waits. */
    private final Map<String, Delays> delays = new ConcurrentHashMap<>();
    private final AtomicLong lastReportMicros = new AtomicLong(Long.MIN_VALUE);

    ShadowReport(TimeSource time) {
        this.time = time;
    }

    /** The would-be waits of one shadow queue: how many, and the longest. */
    private record Delays(LongAdder count, LongAccumulator longest) {
        Delays() {
            this(new LongAdder(), new LongAccumulator(Math::max, 0));
        }
    }

    @Override
    public void onDecision(RequestView request, Decision decision, Event event) {
        if (!decision.shadowDenied() && decision.shadowDelayMicros() == 0) {
            return;
        }
        for (RuleOutcome o : decision.outcomes()) {
            if (!o.rule().shadow()) {
                continue;
            }
            if (!o.outcome().allowed()) {
                counts.computeIfAbsent(o.rule().name(), name -> new LongAdder()).increment();
            } else if (o.outcome().delayMicros() > 0) {
                Delays d = delays.computeIfAbsent(o.rule().name(), name -> new Delays());
                d.count().increment();
                d.longest().accumulate(o.outcome().delayMicros());
            }
        }
        long now = time.nowMicros();
        long last = lastReportMicros.get();
        // a time a little before the last report's is no reason to report again: another thread read the clock just
        // before this one, or the default clock stepped back some microseconds as it re-anchored; only a clock set back
        // by a whole interval is, so that it does not silence the report until it has caught up
        boolean due = last == Long.MIN_VALUE || now - last >= INTERVAL_MICROS || last - now >= INTERVAL_MICROS;
        if (due && lastReportMicros.compareAndSet(last, now)) {
            report(last == Long.MIN_VALUE ? 0 : now < last ? -1 : now - last);
        }
    }

    /**
     * Logs the counts since the last report: {@code would have denied {rule=n}}, {@code would have delayed
     * {queue=n (up to 800ms)}} (the longest would-be wait of that queue since the last report), or both joined by
     * {@code and}.
     */
    private void report(long sinceMicros) {
        Map<String, Long> denied = new TreeMap<>();
        counts.forEach((rule, count) -> {
            long n = count.sumThenReset();
            if (n > 0) {
                denied.put(rule, n);
            }
        });
        Map<String, String> delayed = new TreeMap<>();
        delays.forEach((rule, d) -> {
            long longest = d.longest().getThenReset();
            long n = d.count().sumThenReset();
            if (n > 0) {
                delayed.put(rule, n + " (up to " + PolicyParser.formatWait(longest) + ")");
            }
        });
        String what = denied.isEmpty() ? "delayed " + delayed
                : delayed.isEmpty() ? "denied " + denied
                : "denied " + denied + " and delayed " + delayed;
        LOG.log(Level.INFO, "shadow mode: would have " + what
                + (sinceMicros == 0 ? " (first " + (denied.isEmpty() ? "delay" : "denial")
                        + "; next report in at most a minute)"
                        : sinceMicros < 0 ? " request(s) since the last report (the clock was set back)"
                        : " request(s) in the last " + sinceMicros / 1_000_000 + " s"));
    }
}
