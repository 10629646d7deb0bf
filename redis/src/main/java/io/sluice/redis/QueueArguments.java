package io.sluice.redis;

import java.time.Duration;

/** The checks of an {@link AdmissionQueue.Builder}'s settings and of a payload offered: each answers what it checked. */
final class QueueArguments {

    private QueueArguments() {}

    static String name(String name) {
        if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("queue name: letters, digits, '.', '_', '-', 1 to 64: " + name);
        }
        return name;
    }

    static String prefix(String p) {
        if (p == null || p.isEmpty() || p.contains("{") || p.contains("}")) {
            throw new IllegalArgumentException("prefix: non-empty, without braces: " + p);
        }
        return p;
    }

    static int bound(int n) {
        if (n < 1 || n > AdmissionQueue.MAX_BOUND) {
            throw new IllegalArgumentException("bound: 1 to " + AdmissionQueue.MAX_BOUND + ": " + n);
        }
        return n;
    }

    static Duration claimTimeout(Duration t) {
        if (t == null || t.toMillis() < 100) {
            throw new IllegalArgumentException("claim timeout: at least 100 ms: " + t);
        }
        return t;
    }

    static int maxPayloadBytes(int bytes) {
        if (bytes < 1 || bytes > 512 * 1024 * 1024) {
            throw new IllegalArgumentException("max payload bytes: 1 to 512 MiB: " + bytes);
        }
        return bytes;
    }

    static void resultRetention(Duration ttl, int length) {
        if (ttl == null || ttl.toMillis() < 1 || length < 1) {
            throw new IllegalArgumentException("result retention: at least 1 ms and 1 entry");
        }
    }

    static Duration timeout(Duration t) {
        if (t == null || t.toMillis() < 1) {
            throw new IllegalArgumentException("timeout: at least 1 ms");
        }
        return t;
    }

    static int maxDeliveries(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("max deliveries: at least 1: " + n);
        }
        return n;
    }

    static int poolSize(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("pool size: at least 1: " + size);
        }
        return size;
    }

    /** @throws IllegalArgumentException when {@code payload} is null or over {@code maxPayloadBytes} in UTF-8 */
    static String payload(String payload, int maxPayloadBytes) {
        if (payload == null) {
            throw new IllegalArgumentException("payload is required");
        }
        int size = payload.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (size > maxPayloadBytes) {
            throw new IllegalArgumentException("payload of " + size + " bytes is over the queue's bound of "
                    + maxPayloadBytes);
        }
        return payload;
    }
}
