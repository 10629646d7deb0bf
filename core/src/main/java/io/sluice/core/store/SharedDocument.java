package io.sluice.core.store;

/**
 * The rules document the nodes of a fleet share ({@link SharedSettings}): the text of a rules file, with the version
 * the store gave it.
 *
 * @param version 1 for the first document, one more at each replacement; 0 when there is none
 * @param text the document, in the schema of a rules file; null when there is none
 * @param who who wrote it (the admin principal), or empty
 * @param atMillis when it was written, epoch milliseconds; 0 when there is none
 */
public record SharedDocument(long version, String text, String who, long atMillis) {

    /** No document: the nodes use their local rules alone. */
    public static final SharedDocument NONE = new SharedDocument(0, null, "", 0);

    public SharedDocument {
        if (version < 0) {
            throw new IllegalArgumentException("version must be >= 0, got " + version);
        }
        who = who == null ? "" : who;
    }

    /** @return whether there is a document */
    public boolean present() {
        return text != null;
    }
}
