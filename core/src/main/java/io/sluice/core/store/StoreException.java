package io.sluice.core.store;

/** A store could not answer (Redis down, timed out, refused the script). The engine applies the rule's failure mode. */
public class StoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }

    public StoreException(String message) {
        super(message);
    }
}
