package io.sluice.core.store;

/**
 * A rules document was written over a version other than the one its writer read: someone replaced it meanwhile.
 * Nothing was written; read it again.
 */
public final class StaleVersionException extends RuntimeException {

    private final long expected;
    private final long actual;

    public StaleVersionException(long expected, long actual) {
        super("the shared rules document is at version " + actual + ", not " + expected + ": read it again");
        this.expected = expected;
        this.actual = actual;
    }

    /** @return the version the writer expected */
    public long expected() {
        return expected;
    }

    /** @return the version the store holds */
    public long actual() {
        return actual;
    }
}
