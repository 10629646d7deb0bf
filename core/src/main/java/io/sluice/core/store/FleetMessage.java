package io.sluice.core.store;

/**
 * What one node tells every node that shares its store ({@link FleetChannel}): a key blocked by a penalty, or a key
 * reset (an admin unblock), or the shared settings changed.
 *
 * @param kind what happened
 * @param origin the id of the node that says it (a node ignores its own messages)
 * @param rule the rule's name
 * @param key the key, raw (a message is never stored)
 * @param untilMicros {@link Kind#PENALTY}: the end of the block, epoch µs on the sender's clock; 0 otherwise
 */
public record FleetMessage(Kind kind, String origin, String rule, String key, long untilMicros) {

    /** The longest rule name and key a message carries: {@value} characters each; longer ones are not sent. */
    public static final int MAX_TEXT = 4_096;

    /** What happened to a key. */
    public enum Kind {
        /** The key is blocked until {@code untilMicros}: it came back too soon while denied. */
        PENALTY,
        /** The key was reset: forget its penalty and its remembered denials. */
        RESET,
        /** The shared settings changed ({@link SharedSettings}): read them again. Rule and key are empty. */
        SETTINGS
    }

    public FleetMessage {
        if (kind == null || origin == null || rule == null || key == null) {
            throw new IllegalArgumentException("kind, origin, rule and key are required");
        }
    }
}
