package io.sluice.redis;

import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;

/**
 * The client parts written lately ({@link ClientKeys}), direct-mapped: a key's slot is picked by its hash, and a new
 * key takes the slot over. A hot key is found in a few nanoseconds, without a lock or an allocation; a key seen once
 * costs one small object. A general cache (Caffeine, before) cost more per miss, in its bookkeeping, than the keyed hash
 * it saved (about 0.3 µs), and over 100,000 keys nearly every request is a miss (issue 31: client CPU per decision).
 *
 * <p>Threads share it without locks: an entry is immutable (final fields), so a thread sees either a whole entry or an
 * older one, and a lost write costs a hash computed again.
 */
final class KeyMemo {

    /** The slots: {@value}, about 1 MiB when all are full. */
    static final int SLOTS = 8192;

    private final UnaryOperator<String> write;
    private final Entry[] slots = new Entry[SLOTS];

    /** @param write how a client part is written when it is not here */
    KeyMemo(UnaryOperator<String> write) {
        this.write = write;
    }

    /** @return {@code key} as written, and its UTF-8 bytes */
    Entry get(String key) {
        int h = key.hashCode();
        int i = (h ^ (h >>> 16)) & (SLOTS - 1);
        Entry e = slots[i];
        if (e == null || !e.key.equals(key)) {
            e = new Entry(key, write.apply(key));
            slots[i] = e;
        }
        return e;
    }

    /** One client part: as the application gave it, as Redis holds it, and the latter's bytes. */
    static final class Entry {
        final String key;
        final String written;
        final byte[] bytes;

        Entry(String key, String written) {
            this.key = key;
            this.written = written;
            this.bytes = written.getBytes(StandardCharsets.UTF_8);
        }
    }
}
