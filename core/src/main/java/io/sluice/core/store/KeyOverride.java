package io.sluice.core.store;

/**
 * Another policy for one key of one rule, set by an operator ({@link SharedSettings}): raise customer {@code acme} to
 * 10,000 an hour, cut a noisy address to 1 a minute. The key counts in the state it had: an override changes the
 * numbers, not the count.
 *
 * @param rule the rule's name
 * @param key the key as the store keeps it at rest ({@link SharedSettings#keyId}): a keyed hash of the client's value
 *     on Redis, unless raw keys are configured
 * @param policy the policy in the limit notation, with its algorithm ({@code 10000/1h (gcra)}), which is the rule's
 * @param untilMillis when the override ends, epoch milliseconds; 0 when it holds until removed
 * @param who who set it (the admin principal), or empty
 * @param atMillis when it was set, epoch milliseconds
 */
public record KeyOverride(String rule, String key, String policy, long untilMillis, String who, long atMillis) {

    public KeyOverride {
        if (rule == null || key == null || policy == null) {
            throw new IllegalArgumentException("rule, key and policy are required");
        }
        if (untilMillis < 0) {
            throw new IllegalArgumentException("untilMillis must be >= 0, got " + untilMillis);
        }
        who = who == null ? "" : who;
    }

    /** @return whether the override holds at {@code nowMillis} */
    public boolean holdsAt(long nowMillis) {
        return untilMillis == 0 || nowMillis < untilMillis;
    }
}
