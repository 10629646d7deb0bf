package io.sluice.http;

import io.sluice.core.config.ConfigException;
import io.sluice.core.time.TimeSource;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The rules of a file, reloaded when it changes. No thread: on the request path, at most once per
 * {@code intervalMicros} (by the {@link TimeSource}), one request examines the file's {@link RulesSource#stamp()}
 * (modification time and size: one {@code stat}); only when it changed is the file read and parsed, on that request.
 * Every other request reads a volatile field.
 *
 * <p>An invalid new file keeps the previous rules and logs why, once per version of the file. An interval of 0
 * turns reloading off.
 */
public final class ReloadingRules implements Supplier<RuleSet> {

    private static final System.Logger LOG = System.getLogger(ReloadingRules.class.getName());

    private final RulesSource source;
    private final Function<String, RuleSet> parser;
    private final long intervalMicros;
    private final TimeSource time;
    private final AtomicLong lastCheckMicros;
    private volatile RuleSet current;
    private final BiConsumer<RuleSet, RuleSet> reloaded;
    private volatile Object stamp;
    /** Whether the version of the file last read was refused (invalid, or refused by the parser's checks). */
    private volatile boolean refused;
    /** The last failure to examine the file, logged once: null while it can be examined. */
    private volatile String lastFailure;
    /**
     * Held by the one reload at a time: two that overlapped (a reload slower than the interval, a clock read out of
     * order) could each load a version, the older one last, and keep it until the file changed again.
     */
    private final ReentrantLock reloading = new ReentrantLock();

    /**
     * Reads and parses the file now.
     *
     * @param parameter names the configuration parameter in errors, such as {@code rules (init-param)}
     * @param parser turns the text into rules, throwing {@link ConfigException} when it is invalid; the rules it returns
     *     are put in force at once (so a parser may note what it parsed as the file's rules in force), and it runs
     *     only while no other reload or {@link #replace} runs
     * @throws ConfigException when the file cannot be read or is invalid: start-up must fail
     */
    public ReloadingRules(String parameter, RulesSource source, Function<String, RuleSet> parser, long intervalMicros,
            TimeSource time) {
        this(parameter, source, parser, intervalMicros, time, (before, after) -> {});
    }

    /**
     * {@link #ReloadingRules(String, RulesSource, Function, long, TimeSource)}, telling {@code reloaded} of every
     * reload that loads rules: with the rules in force until then and those in force from then on, once the new ones
     * are, on the thread that reloaded and before another reload can start.
     */
    public ReloadingRules(String parameter, RulesSource source, Function<String, RuleSet> parser, long intervalMicros,
            TimeSource time, BiConsumer<RuleSet, RuleSet> reloaded) {
        this.reloaded = reloaded;
        this.source = source;
        this.parser = parser;
        this.intervalMicros = intervalMicros;
        this.time = time;
        try {
            this.stamp = source.stamp();
            this.current = parser.apply(source.read());
        } catch (IOException e) {
            throw new ConfigException(parameter, source.name(), "cannot read the rules file (" + e + ")");
        }
        this.lastCheckMicros = new AtomicLong(time.nowMicros());
    }

    /** @return the current rules; examines the file first when the interval has passed since the last look */
    @Override
    public RuleSet get() {
        if (intervalMicros > 0) {
            long now = time.nowMicros();
            long last = lastCheckMicros.get();
            boolean due = now - last >= intervalMicros || now < last;     // a clock set back must not stop reloads
            if (due && lastCheckMicros.compareAndSet(last, now) && reloading.tryLock()) {
                try {       // a request never waits for a reload: while one runs, the others use the rules in force
                    reload();
                } finally {
                    reloading.unlock();
                }
            }
        }
        return current;
    }

    /**
     * Examines the file now and loads it when it changed.
     *
     * @return whether new rules were loaded
     */
    public boolean reloadIfChanged() {
        reloading.lock();           // after a reload that is running: it may have loaded an older version
        try {
            return reload();
        } finally {
            reloading.unlock();
        }
    }

    /** Runs {@code action} while no reload runs (blocking until one running ends); it may call {@link #get}. */
    public void whileNotReloading(Runnable action) {
        reloading.lock();
        try {
            action.run();
        } finally {
            reloading.unlock();
        }
    }

    /**
     * Puts in force the rules {@code change} makes of those in force, as a reload would: while no reload runs (blocking
     * until one running ends), telling {@code reloaded} of it before another reload can start. What else changes the
     * rules (a shared rules document) thus never interleaves with a reload of the file: each is composed with, and
     * checked against, what the other put in force. May be called from {@link #whileNotReloading}.
     *
     * @param change given the rules in force, returns those to put in force; throwing (a {@link ConfigException}, say)
     *     leaves the rules in force as they are
     * @return the rules now in force
     */
    public RuleSet replace(UnaryOperator<RuleSet> change) {
        reloading.lock();
        try {
            RuleSet before = current;
            RuleSet next = Objects.requireNonNull(change.apply(before), "rules");
            current = next;
            tell(reloaded, before, next, "rules replaced");
            return next;
        } finally {
            reloading.unlock();
        }
    }

    /**
     * Reads the file again at the next look even though it did not change, when the version last read was refused: what
     * its parser composes it with changed (a shared rules document), so it may pass now. A file loaded stays as it is.
     */
    public void retryRefused() {
        reloading.lock();
        try {
            if (refused) {
                stamp = null;
            }
        } finally {
            reloading.unlock();
        }
    }

    /** {@link #reloadIfChanged()}, under {@link #reloading}. */
    private boolean reload() {
        Object now;
        try {
            now = source.stamp();
        } catch (IOException e) {
            String failure = String.valueOf(e);
            if (!failure.equals(lastFailure)) {       // once per kind of failure, not at every look (8,640 a day)
                lastFailure = failure;
                LOG.log(Level.WARNING, "rules file " + source.name() + " cannot be examined; keeping the previous rules"
                        + " until it can (logged once): " + e);
            }
            return false;
        }
        if (lastFailure != null) {
            lastFailure = null;
            LOG.log(Level.INFO, "rules file " + source.name() + " can be examined again");
        }
        if (Objects.equals(now, stamp)) {
            return false;
        }
        stamp = now;      // a bad version is reported once, not at every look
        RuleSet before = current;
        RuleSet next = load(now);
        if (next == null) {
            return false;
        }
        LOG.log(Level.INFO, "rules reloaded from " + source.name() + ": " + next.rules().size() + " rule(s) "
                + next.summary());
        tell(reloaded, before, next, "rules reloaded from " + source.name());
        return true;
    }

    /**
     * Tells {@code listener} of rules now in force; a listener that throws is logged: the rules are in force all the
     * same.
     *
     * @param what the change, for the log: {@code rules replaced}
     */
    static void tell(BiConsumer<RuleSet, RuleSet> listener, RuleSet before, RuleSet after, String what) {
        try {
            listener.accept(before, after);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, what + ", but telling of it failed", e);
        }
    }

    /**
     * Reads and parses the rules file of stamp {@code now}, and puts its rules in force.
     *
     * @return the rules now in force; null when the file was written to while read, or is invalid (logged)
     */
    private RuleSet load(Object now) {
        try {
            String text = source.read();
            Object after;
            try {
                after = source.stamp();
            } catch (IOException gone) {
                after = null;             // cannot be examined just now: look again next time
            }
            if (!Objects.equals(now, after)) {
                stamp = null;             // written to while read (in place, not renamed): read it again next time
                return null;
            }
            RuleSet next = parser.apply(text);
            current = next;
            refused = false;
            return next;
        } catch (RuntimeException | IOException e) {     // a bug in parsing must not fail requests either
            refused = true;
            LOG.log(Level.WARNING, "rules file " + source.name() + " changed but is invalid; keeping the previous "
                    + current.rules().size() + " rule(s) " + current.names() + ": " + e.getMessage());
            return null;
        }
    }

    /** @return where the rules come from */
    public RulesSource source() {
        return source;
    }
}
