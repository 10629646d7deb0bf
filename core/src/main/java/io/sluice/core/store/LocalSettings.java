package io.sluice.core.store;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@link SharedSettings#local()}: settings in this process's memory, under one lock. */
final class LocalSettings implements SharedSettings {

    private final Map<String, KeyOverride> overrides = new LinkedHashMap<>();
    private final ArrayDeque<AuditEntry> audit = new ArrayDeque<>();
    private SharedDocument document = SharedDocument.NONE;
    private long version;
    private long lastAuditId;

    @Override
    public synchronized long version() {
        return version;
    }

    @Override
    public synchronized SharedSnapshot read() {
        return new SharedSnapshot(version, document, List.copyOf(overrides.values()));
    }

    @Override
    public synchronized SharedDocument replaceDocument(String text, long expectedVersion, String who, long nowMillis) {
        checkSize(text);
        if (expectedVersion != -1 && expectedVersion != document.version()) {
            throw new StaleVersionException(expectedVersion, document.version());
        }
        SharedDocument previous = document;
        document = new SharedDocument(previous.version() + 1, text, who, nowMillis);
        version++;
        add(new AuditEntry("", nowMillis, who, AuditEntry.Action.RULES_REPLACED, "", "",
                text == null ? "" : "version " + document.version(), previous.present() ? previous.text() : ""));
        return document;
    }

    @Override
    public synchronized KeyOverride putOverride(KeyOverride o) {
        dropEnded(o.atMillis());
        String id = id(o.rule(), o.key());
        if (!overrides.containsKey(id) && overrides.size() >= MAX_OVERRIDES) {
            throw new IllegalStateException("at most " + MAX_OVERRIDES + " overrides hold at once; remove some first");
        }
        KeyOverride previous = overrides.put(id, o);
        version++;
        add(new AuditEntry("", o.atMillis(), o.who(), AuditEntry.Action.OVERRIDE_SET, o.rule(), o.key(),
                describe(o), previous == null ? "" : describe(previous)));
        return previous;
    }

    @Override
    public synchronized KeyOverride removeOverride(String rule, String key, String who, long nowMillis) {
        KeyOverride removed = overrides.remove(id(rule, key));
        if (removed != null) {
            version++;
            add(new AuditEntry("", nowMillis, who, AuditEntry.Action.OVERRIDE_REMOVED, rule, key, "",
                    describe(removed)));
        }
        return removed;
    }

    @Override
    public synchronized void record(AuditEntry entry) {
        add(entry);
    }

    @Override
    public synchronized List<AuditEntry> audit(int max) {
        List<AuditEntry> newest = new ArrayList<>(Math.min(max, audit.size()));
        Iterator<AuditEntry> it = audit.descendingIterator();
        while (it.hasNext() && newest.size() < max) {
            newest.add(it.next());
        }
        return newest;
    }

    /** @return an override as the audit trail shows it: its policy, and its end when it has one */
    static String describe(KeyOverride o) {
        return o.untilMillis() == 0 ? o.policy() : o.policy() + " until " + o.untilMillis();
    }

    /** @throws IllegalArgumentException when {@code text} is longer than {@link #MAX_DOCUMENT_BYTES} */
    static void checkSize(String text) {
        if (text != null && (text.length() > MAX_DOCUMENT_BYTES
                || text.getBytes(StandardCharsets.UTF_8).length > MAX_DOCUMENT_BYTES)) {
            throw new IllegalArgumentException("a shared rules document holds at most " + MAX_DOCUMENT_BYTES
                    + " bytes of UTF-8");
        }
    }

    private void add(AuditEntry entry) {
        audit.addLast(entry.withId(Long.toString(++lastAuditId)));
        while (audit.size() > AUDIT_LENGTH) {
            audit.removeFirst();
        }
    }

    private void dropEnded(long nowMillis) {
        if (overrides.values().removeIf(o -> !o.holdsAt(nowMillis))) {
            version++;
        }
    }

    private static String id(String rule, String key) {
        return rule + '\0' + key;
    }
}
