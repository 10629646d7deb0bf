package io.sluice.core.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Captures what is logged under a logger name and the names below it (java.util.logging, the System.Logger default)
 * until closed.
 */
public final class LogCapture implements AutoCloseable {

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    /** Held: java.util.logging keeps its loggers weakly, and with a collected one the handler would be gone. */
    private final Logger logger;
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            records.add(r);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    /** @param name the logger, such as {@code io.sluice} for all of Sluice's or a class's name for one class's */
    public LogCapture(String name) {
        logger = Logger.getLogger(name);
        logger.addHandler(handler);
    }

    /** @return every record so far as {@code LEVEL logger: message}, and {@code  / exception} when one was logged */
    public List<String> messages() {
        return records.stream().map(r -> r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage()
                + (r.getThrown() == null ? "" : " / " + r.getThrown())).toList();
    }

    /**
     * @return every line of every record so far as java.util.logging's {@link SimpleFormatter} writes it to a log file
     *     or console: the header line, the message, and the exception's {@code toString()} and stack trace (split at
     *     CR and LF, as a reader of the log sees them)
     */
    public List<String> lines() {
        SimpleFormatter formatter = new SimpleFormatter();
        return records.stream().flatMap(r -> formatter.format(r).lines()).toList();
    }

    /**
     * @return the {@link #lines()} a hostile client's text got into raw: each that starts with {@code forged} (a line
     *     forged with CR or LF), is {@code maxLength} characters or longer (unbounded), or holds an ESC (a terminal
     *     escape sequence); each as {@link io.sluice.core.log.LogText#safe(String)} gives it, for the test's report
     */
    public List<String> unsafeLines(String forged, int maxLength) {
        return lines().stream().filter(l -> l.startsWith(forged) || l.length() >= maxLength || l.indexOf('\u001b') >= 0)
                .map(io.sluice.core.log.LogText::safe)
                .toList();
    }

    /** @return the messages of the {@code WARNING} records so far, as logged */
    public List<String> warnings() {
        return at(Level.WARNING);
    }

    /** @return the messages of the {@code SEVERE} records so far ({@code System.Logger}'s ERROR), as logged */
    public List<String> errors() {
        return at(Level.SEVERE);
    }

    /** @return the messages of the records at {@code level} so far, as logged */
    public List<String> at(Level level) {
        return records.stream().filter(r -> r.getLevel() == level).map(LogRecord::getMessage).toList();
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
    }
}
