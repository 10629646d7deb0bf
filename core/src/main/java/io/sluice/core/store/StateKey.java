package io.sluice.core.store;

/** The map key of one (rule, key) in a {@link MemoryStore}: both strings, the hash computed once. */
final class StateKey {
    final String rule;
    final String key;
    private final int hash;

    StateKey(String rule, String key) {
        this.rule = rule;
        this.key = key;
        this.hash = 31 * rule.hashCode() + key.hashCode();
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StateKey other && hash == other.hash && key.equals(other.key) && rule.equals(other.rule);
    }

    @Override
    public String toString() {
        return rule + "/" + key;
    }
}
