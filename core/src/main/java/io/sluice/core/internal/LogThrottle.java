package io.sluice.core.internal;

import io.sluice.core.log.LogText;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets one log line through per interval and counts the ones held back in between: for failures a flood of requests
 * could repeat (a store that is down, a resolver a hostile request makes throw). The first line passes at once.
 * Thread-safe; a line held back while another passes is counted for the next. A time earlier than the last line's
 * (a thread that read the clock just before another, a clock stepped back a little) holds a line back too; one earlier
 * by a whole interval or more (the wall clock set back) lets it through, rather than holding every line until the
 * clock has caught up.
 *
 * <p>Such failures come from requests, so an exception logged here is logged {@link LogText#safe(Throwable) safe}: its
 * messages, which may quote what a client sent, with control characters escaped and bounded in length. A message
 * given here is logged as it is: make any request's text in it safe with {@link LogText#safe(String)}.
 */
public final class LogThrottle {

    private static final long NEVER = Long.MIN_VALUE;

    private final long intervalMicros;
    private final AtomicLong lastMicros = new AtomicLong(NEVER);
    private final AtomicLong held = new AtomicLong();

    /**
     * What a passing line reports.
     *
     * @param held lines held back since the last that passed
     * @param sinceMicros time since the last line that passed; -1 for the first, and after the clock was set back
     */
    public record Pass(long held, long sinceMicros) {}

    /** @param intervalMicros the least time between two lines that pass */
    public LogThrottle(long intervalMicros) {
        this.intervalMicros = intervalMicros;
    }

    /**
     * Logs {@code message} to {@code log} when a line may pass now, followed by how many were held back since the last
     * and how often at most such a line is logged; else holds it back (and counts it).
     *
     * @param thrown logged with its stack trace, its messages made {@link LogText#safe(Throwable) safe}; null for none
     */
    public void log(System.Logger log, System.Logger.Level level, long nowMicros, String message, Throwable thrown) {
        Pass pass = pass(nowMicros);
        if (pass == null) {
            return;
        }
        String every = intervalMicros == 60_000_000 ? "once a minute" : "once every " + intervalMicros / 1_000_000 + " s";
        String text = message + (pass.held() > 0 ? " (" + pass.held() + " more such failures not logged since the last;"
                + " logged at most " + every + ")" : " (logged at most " + every + ")");
        if (thrown == null) {
            log.log(level, text);
        } else {
            log.log(level, text, LogText.safe(thrown));
        }
    }

    /** @return the pass when this line may be logged now; null when it is held back (and counted) */
    public Pass pass(long nowMicros) {
        long last = lastMicros.get();
        boolean setBack = last != NEVER && last - nowMicros >= intervalMicros;
        if ((last != NEVER && nowMicros - last < intervalMicros && !setBack)
                || !lastMicros.compareAndSet(last, nowMicros)) {
            held.incrementAndGet();
            return null;
        }
        return new Pass(held.getAndSet(0), last == NEVER || setBack ? -1 : nowMicros - last);
    }
}
