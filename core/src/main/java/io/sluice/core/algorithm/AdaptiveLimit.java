package io.sluice.core.algorithm;

/**
 * The limit of {@link io.sluice.core.policy.Algorithm#ADAPTIVE_CONCURRENCY}: a concurrency limit that finds itself
 * from the latency and the failures of the requests it admits. Pure and deterministic: it changes only when a sample
 * is given ({@link #sample}), never by a clock of its own, so a test drives it with a manual clock. Thread-safe; one per
 * (rule, key) on each node.
 *
 * <p><b>The rule: TCP Vegas</b>, as Netflix's concurrency-limits library applies it to servers, with its numbers. The
 * limit is compared with the latency it causes: with no queue a request takes the no-load latency {@code base}; when
 * a request takes {@code rtt}, about {@code queue = ceil(limit * (1 - base / rtt))} requests are waiting in the
 * server. With {@code log = max(1, floor(log10(limit)))}, {@code alpha = 3 log} and {@code beta = 6 log}, once a round:
 * <ul>
 *   <li>a failure in the round (a 5xx, an exception, a timeout): {@code limit = floor(limit * 0.9)} (back off as TCP
 *       does on a loss: a failing server is shed fast);</li>
 *   <li>otherwise, when the limit was not used ({@code in flight * 2 < limit}): unchanged (a limit is not grown on
 *       the strength of load it never saw);</li>
 *   <li>{@code queue <= log}: {@code limit + beta} (no queue at all: grow fast);</li>
 *   <li>{@code queue < alpha}: {@code limit + log};</li>
 *   <li>{@code queue > beta}: {@code limit - log};</li>
 *   <li>else unchanged;</li>
 * </ul>
 * always within {@code [min, max]}. So the limit settles where a few requests queue: for a server that serves
 * {@code C} requests at once at its base latency, and queues the rest, at {@code C + alpha} to {@code C + beta}.
 *
 * <p><b>A round</b> is {@code limit} samples (at least {@value #MIN_ROUND} samples): under load, about one latency's
 * worth of completions, as TCP Vegas decides once per round trip. Deciding on every sample would grow the limit for a
 * whole round before the latency of the first increase is seen, and overshoot. The round's latency is the mean of its
 * samples, its in-flight the most any of its samples saw when admitted.
 *
 * <p><b>The no-load latency</b> {@code base} is the least round latency seen; every {@value #PROBE_ROUNDS} rounds it is
 * learnt again, as the least of those rounds (Netflix's Vegas probes similarly), so that a server that has become
 * slower for good (not from load: a slower dependency) gets its limit back. Until then, a latency that doubles
 * reads as a queue and the limit falls: a server whose latency rises sheds load first and asks questions later. The
 * known cost of Vegas: under overload that never lets up, every re-learnt base includes a little queue, and the limit
 * can creep up by about {@code alpha} per probe; {@code max} bounds it, and failures cut it.
 *
 * <p><b>Why Vegas</b>, not Gradient2 or AIMD: AIMD needs a latency threshold in milliseconds from the operator (or
 * waits for failures, when it is too late) and saws between the threshold and 90% of it; Gradient2 compares a short
 * with a long average of latency, both of which rise together under sustained load, so its limit drifts upwards with
 * the queue it creates. Vegas measures the queue against the no-load latency, so it settles just above the server's
 * capacity, with integers, no parameter in milliseconds, and a rule simple enough to check by hand.
 */
public final class AdaptiveLimit {

    /** The fewest samples of a round ({@value}). */
    public static final int MIN_ROUND = 10;
    /** Rounds between two measures of the no-load latency ({@value}). */
    public static final int PROBE_ROUNDS = 100;

    private final long min;
    private final long max;
    private volatile long limit;

    private long base;              // µs; 0: none yet
    private long probeMin = Long.MAX_VALUE;
    private int probeRounds;
    private int samples;
    private long rttSum;
    private long mostInFlight;
    private boolean dropped;

    /**
     * @param initial the limit to start from
     * @param min the least it falls to, at least 1
     * @param max the most it grows to, at least {@code initial}
     */
    public AdaptiveLimit(long initial, long min, long max) {
        if (min < 1 || initial < min || max < initial) {
            throw new IllegalArgumentException("expected 1 <= min <= initial <= max, got " + min + ", " + initial
                    + ", " + max);
        }
        this.min = min;
        this.max = max;
        this.limit = initial;
    }

    /** @return the current limit */
    public long limit() {
        return limit;
    }

    /** @return the no-load latency it measures against, in microseconds; 0 before the first round */
    public synchronized long baseMicros() {
        return base;
    }

    /**
     * One request completed.
     *
     * @param rttMicros how long it took, from its admission to its completion
     * @param inFlight the weight in flight when it was admitted, its own included
     * @param failed whether it failed (5xx, exception, timeout): a drop
     * @return the limit after the sample
     */
    public synchronized long sample(long rttMicros, long inFlight, boolean failed) {
        samples++;
        rttSum += Math.max(1, rttMicros);
        mostInFlight = Math.max(mostInFlight, inFlight);
        dropped |= failed;
        if (samples >= Math.max(MIN_ROUND, limit)) {
            long rtt = Math.max(1, rttSum / samples);
            limit = next(rtt, mostInFlight, dropped);
            samples = 0;
            rttSum = 0;
            mostInFlight = 0;
            dropped = false;
        }
        return limit;
    }

    /** The end of a round of mean latency {@code rtt}. */
    private long next(long rtt, long inFlight, boolean drop) {
        probeMin = Math.min(probeMin, rtt);
        if (++probeRounds >= PROBE_ROUNDS) {
            base = probeMin;            // learnt again: a server slower for good gets its limit back
            probeMin = Long.MAX_VALUE;
            probeRounds = 0;
        } else {
            base = base == 0 ? rtt : Math.min(base, rtt);
        }
        long l = limit;
        if (drop) {
            return Math.max(min, l * 9 / 10);
        }
        if (inFlight * 2 < l) {
            return l;
        }
        long log = Math.max(1, (long) Math.log10(l));
        long alpha = 3 * log;
        long beta = 6 * log;
        long queue = (long) Math.ceil(l * (1 - (double) base / rtt));
        long next;
        if (queue <= log) {
            next = l + beta;
        } else if (queue < alpha) {
            next = l + log;
        } else if (queue > beta) {
            next = l - log;
        } else {
            return l;
        }
        return Math.max(min, Math.min(max, next));
    }
}
