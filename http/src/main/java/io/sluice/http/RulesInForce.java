package io.sluice.http;

import io.sluice.core.Operations;
import io.sluice.core.config.ConfigException;
import io.sluice.core.store.SharedDocument;
import io.sluice.core.time.TimeSource;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The rules a front door decides by: the local rules (parameter {@code limit}'s rule and the rules file's, reloaded
 * when the file changes) with the shared rules document's layered on top ({@link SharedRules} gives the precedence).
 * It is the front door's reader of shared documents ({@link Operations#readDocumentsWith}): a document is parsed as a
 * rules file is (same schema, named keys and client address resolver), composed with the local rules in force, and
 * passed through the same checks as a reloaded rules file ({@link FrontDoor#checkReloads}).
 *
 * <p>One lock orders every change: a reload of the file and a change of the document each compose with what the other
 * put in force, are checked, and are put in force under it (the lock of {@link ReloadingRules} when there is a file,
 * one of its own otherwise), so no combination is ever in force that was not checked. When the file reloads, the
 * document's rules stay on top; when the document changes, the file's rules in force are the base (and a version of
 * the file refused is read again at the next look, as it may pass with this document). Listeners hear of
 * both ({@link io.sluice.core.DecisionListener#onRulesChanged}). A request never waits for the lock: it reads the rules
 * in force from a volatile field.
 */
final class RulesInForce implements Supplier<RuleSet>, Operations.DocumentReader {

    /** The shared rules document in errors and logs: {@value}. */
    static final String DOCUMENT_NAME = "shared rules document";

    /** The front door's logger: what is logged here is the front door's to say. */
    private static final System.Logger LOG = System.getLogger(FrontDoor.class.getName());
    private static final RuleSet NO_FILE = new RuleSet(List.of(), Allowlist.NONE);

    private final SluiceConfig config;
    private final List<Consumer<RuleSet>> checks;
    private final BiConsumer<RuleSet, RuleSet> changed;
    /** The rules file, reloaded; null without one. Its lock is the lock of every change. */
    private final ReloadingRules file;
    /** Without a rules file: the lock of every change. */
    private final ReentrantLock lock = new ReentrantLock();
    /** Without a rules file: the rules in force. */
    private volatile RuleSet fixed;
    /** Under the lock: the file's rules in force, as parsed (no file: none). */
    private RuleSet fileRules = NO_FILE;
    /** Under the lock: the document's rules in force, as parsed; null when none is. */
    private RuleSet documentRules;

    /**
     * Reads the rules file, when there is one.
     *
     * @param checks what every composition must pass besides its own validity (none at start-up)
     * @param changed told of every change of the rules in force, under the lock, with the rules before and after
     * @throws ConfigException when the rules file cannot be read or is invalid
     */
    RulesInForce(SluiceConfig config, TimeSource time, List<Consumer<RuleSet>> checks,
            BiConsumer<RuleSet, RuleSet> changed) {
        this.config = config;
        this.checks = checks;
        this.changed = changed;
        if (config.rules() == null) {
            this.file = null;
            this.fixed = SharedRules.compose(config, NO_FILE, null, true);
        } else {
            String name = config.rules().name();
            this.file = new ReloadingRules(config.rulesParameter(), config.rules(), text -> fromFile(name, text),
                    config.reloadIntervalMicros(), time, changed);
        }
    }

    /** @return the rules in force; with a rules file, examines it first when its reload interval has passed */
    @Override
    public RuleSet get() {
        return file != null ? file.get() : fixed;
    }

    /**
     * Checks a document before it is written: parsed, composed with the local rules in force, and passed through the
     * checks of a reload. Changes nothing.
     *
     * @throws ConfigException naming the problem (the document, its rule and field, as for a rules file)
     */
    @Override
    public void check(String text) {
        RuleSet parsed = parse(text);
        whileSteady(() -> composed(fileRules, parsed, false));
    }

    /**
     * Puts {@code document} in force over the local rules in force, or the local rules alone for
     * {@link SharedDocument#NONE} (or a removed document), all or nothing.
     *
     * @throws ConfigException when this node cannot use it (a named key it lacks, a check it fails): the rules in
     *     force stay
     */
    @Override
    public void apply(SharedDocument document) {
        RuleSet parsed = document.present() ? parse(document.text()) : null;
        RuleSet next = publish(() -> {
            RuleSet composed = composed(fileRules, parsed, true);
            documentRules = parsed;         // only once it passed
            return composed;
        });
        if (file != null) {
            file.retryRefused();            // a version of the file refused with the document before may pass now
        }
        LOG.log(Level.INFO, (parsed == null ? "shared rules document removed (version " + document.version()
                + "); the local rules alone: " : "shared rules document version " + document.version()
                + " in force: ") + next.rules().size() + " rule(s) " + next.summary());
    }

    /** @return where each rule in force comes from, in their order */
    Map<String, RuleOrigin> origins() {
        List<Map<String, RuleOrigin>> out = new ArrayList<>(1);
        whileSteady(() -> out.add(SharedRules.origins(get().names(), config, documentRules)));
        return out.get(0);
    }

    /**
     * Runs {@code action} while no change of the rules runs (blocking until one running ends): what it reads of the
     * rules in force stays in force until it returns.
     */
    void whileSteady(Runnable action) {
        if (file != null) {
            file.whileNotReloading(action);
            return;
        }
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }

    /** @return the rules file, reloaded; null when there is none */
    ReloadingRules file() {
        return file;
    }

    /** The parser of the rules file: its rules, under the document's in force; noted as the file's rules in force. */
    private RuleSet fromFile(String name, String text) {
        RuleSet parsed = RulesFile.parse(name, text, config.clientIp(), config.namedKeys());
        RuleSet next = composed(parsed, documentRules, true);
        fileRules = parsed;         // ReloadingRules puts what its parser returns in force at once
        return next;
    }

    private RuleSet parse(String text) {
        return RulesFile.parse(DOCUMENT_NAME, text, config.clientIp(), config.namedKeys());
    }

    /** @return the layers composed, having passed every check */
    private RuleSet composed(RuleSet fromFile, RuleSet document, boolean log) {
        RuleSet next = SharedRules.compose(config, fromFile, document, log);
        checks.forEach(check -> check.accept(next));
        return next;
    }

    /** Computes and puts in force the rules {@code next} gives, under the lock, telling {@link #changed}. */
    private RuleSet publish(Supplier<RuleSet> next) {
        if (file != null) {
            return file.replace(before -> next.get());
        }
        lock.lock();
        try {
            RuleSet before = fixed;
            RuleSet after = next.get();
            fixed = after;
            ReloadingRules.tell(changed, before, after, "rules replaced");
            return after;
        } finally {
            lock.unlock();
        }
    }
}
