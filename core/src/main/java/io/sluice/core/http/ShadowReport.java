package io.sluice.core.http;

import io.sluice.core.Decision;
import io.sluice.core.DecisionListener;
import io.sluice.core.RequestView;
import io.sluice.core.RuleOutcome;
import io.sluice.core.time.TimeSource;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Reports what shadow rules would have denied: the first such request is logged at once, then at most one line per
 * {@value #INTERVAL_MICROS} µs with the count per rule, so a shadow rollout shows its effect without flooding the log.
 */
final class ShadowReport implements DecisionListener {

    /** At most one report per minute: {@value} µs. */
    static final long INTERVAL_MICROS = 60_000_000;
    private static final System.Logger LOG = System.getLogger(ShadowReport.class.getName());

    private final TimeSource time;
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final AtomicLong lastReportMicros = new AtomicLong(Long.MIN_VALUE);

    ShadowReport(TimeSource time) {
        this.time = time;
    }

    @Override
    public void onDecision(RequestView request, Decision decision, Event event) {
        if (!decision.shadowDenied()) {
            return;
        }
        for (RuleOutcome o : decision.outcomes()) {
            if (o.rule().shadow() && !o.outcome().allowed()) {
                counts.computeIfAbsent(o.rule().name(), name -> new LongAdder()).increment();
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

    private void report(long sinceMicros) {
        Map<String, Long> snapshot = new TreeMap<>();
        counts.forEach((rule, count) -> {
            long n = count.sumThenReset();
            if (n > 0) {
                snapshot.put(rule, n);
            }
        });
        LOG.log(Level.INFO, "shadow mode: would have denied " + snapshot
                + (sinceMicros == 0 ? " (first denial; next report in at most a minute)"
                        : sinceMicros < 0 ? " request(s) since the last report (the clock was set back)"
                        : " request(s) in the last " + sinceMicros / 1_000_000 + " s"));
    }
}
