package io.sluice.core.store;

/**
 * One operator's action, as the audit trail keeps it ({@link SharedSettings#audit}): who did what, when, and what was
 * there before. Keys appear as the store keeps them at rest ({@link SharedSettings#keyId}).
 *
 * @param id the entry's id in the trail (Redis: the stream entry id), assigned by the store; empty before
 * @param atMillis when, epoch milliseconds
 * @param who the admin principal, or empty when unknown
 * @param action what was done
 * @param rule the rule concerned; empty for the rules document
 * @param key the key concerned, as kept at rest; empty for the rules document
 * @param value the new value (the document's version, the override's policy and end); empty for a removal or reset
 * @param previous the value before (the previous document's text, the previous override); empty when there was none
 */
public record AuditEntry(String id, long atMillis, String who, Action action, String rule, String key, String value,
        String previous) {

    /** What an operator did. */
    public enum Action {
        /** Replaced (or removed) the shared rules document. */
        RULES_REPLACED,
        /** Set an override for one key. */
        OVERRIDE_SET,
        /** Removed an override. */
        OVERRIDE_REMOVED,
        /** Reset a key (an unblock: its count, penalty and remembered denials). */
        KEY_RESET
    }

    public AuditEntry {
        if (action == null) {
            throw new IllegalArgumentException("action is required");
        }
        id = id == null ? "" : id;
        who = who == null ? "" : who;
        rule = rule == null ? "" : rule;
        key = key == null ? "" : key;
        value = value == null ? "" : value;
        previous = previous == null ? "" : previous;
    }

    /** @return this entry with the id the store gave it */
    public AuditEntry withId(String newId) {
        return new AuditEntry(newId, atMillis, who, action, rule, key, value, previous);
    }
}
