package io.sluice.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The Redis keys of a store: {@code prefix:rule:key}, or {@code {prefix}:rule:key} with the hash tag. The key part is
 * written as {@link ClientKeys} says (by default a keyed hash); a rule part that is no {@link io.sluice.core.Rule}
 * name is replaced by {@code #} and 22 characters of its SHA-256 (base64url).
 */
final class RedisKeys {

    /** A key prefix, as {@link RedisStore.Builder#prefix} and a URL's {@code ?prefix=} take it. */
    static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._-]{1,32}");
    /** A {@link io.sluice.core.Rule}'s name, kept as it is in keys: no {@code :}, never starting with {@code #}. */
    private static final Pattern RULE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final boolean[] SAFE_CHARS = new boolean[128];

    static {
        for (char c : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:@+/#-".toCharArray()) {
            SAFE_CHARS[c] = true;
        }
    }

    /** {@code prefix:} or {@code {prefix}:}. */
    private final String head;
    private final ClientKeys clients;
    /** The {@code prefix:rule:} part of the keys of each rule, encoded. */
    private final Cache<String, byte[]> ruleHeads = Caffeine.newBuilder().maximumSize(RedisStore.MAX_CACHED)
            .executor(Runnable::run).build();

    /**
     * @param hashTag whether every key carries the hash tag {@code {prefix}}, so that all share one Cluster slot
     * @param clients how the key part is written
     */
    RedisKeys(String prefix, boolean hashTag, ClientKeys clients) {
        this.head = (hashTag ? "{" + prefix + "}" : prefix) + ":";
        this.clients = clients;
    }

    /** @return how the key part is written, for logs */
    ClientKeys clients() {
        return clients;
    }

    /**
     * @return the Redis key of a rule's key: {@code prefix:rule:key}, the key part as {@link ClientKeys} writes it, the
     *     rule part hashed when it is no {@link io.sluice.core.Rule} name
     */
    String key(String rule, String key) {
        return head + safeRule(rule) + ":" + clients.apply(key);
    }

    /** {@link #key(String, String)} encoded; the {@code prefix:rule:} part cached per rule. */
    byte[] bytes(String rule, String key) {
        byte[] head = ruleHeads.getIfPresent(rule);
        if (head == null) {
            head = ruleHeads.get(rule, r -> (this.head + safeRule(r) + ":").getBytes(StandardCharsets.UTF_8));
        }
        byte[] tail = clients.bytes(key);
        byte[] out = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, out, head.length, tail.length);
        return out;
    }

    /**
     * Cluster without a hash tag: the indexes of the checks (or leases), grouped by the hash slot of their encoded
     * keys, in order of first appearance.
     */
    static List<List<Integer>> bySlot(byte[][] keys) {
        Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
        for (int i = 0; i < keys.length; i++) {
            bySlot.computeIfAbsent(JedisClusterCRC16.getSlot(keys[i]), s -> new ArrayList<>()).add(i);
        }
        return new ArrayList<>(bySlot.values());
    }

    static String safe(String key) {
        return isSafe(key) ? key : hash(key);
    }

    /**
     * A rule's name as it is when a {@link io.sluice.core.Rule} may have it, else hashed: a name given to
     * {@code Engine.tryAcquire} may hold anything, and one holding {@code :} would share keys with another name
     * ({@code "a:b"} and key {@code "c"}, {@code "a"} and key {@code "b:c"}). A hash holds no {@code :} and starts with
     * {@code #}, which no kept name does.
     */
    static String safeRule(String rule) {
        return RULE.matcher(rule).matches() ? rule : hash(rule);
    }

    private static String hash(String value) {
        try {
            return tagged(MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8)), 22);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }

    /**
     * @return a hash as a key part: {@code #} (which no kept key part or rule name starts with) and the first
     *     {@code chars} characters of the digest in base64url
     */
    static String tagged(byte[] digest, int chars) {
        byte[] enough = Arrays.copyOf(digest, (chars * 6 + 7) / 8);     // the bytes those characters encode
        return "#" + Base64.getUrlEncoder().withoutPadding().encodeToString(enough).substring(0, chars);
    }

    /** The same test as the pattern {@code [A-Za-z0-9._:@+/#-]{1,64}}, without a regex on every request. */
    static boolean isSafe(String key) {
        int n = key.length();
        if (n == 0 || n > RedisStore.MAX_RAW_KEY) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = key.charAt(i);
            if (c >= 128 || !SAFE_CHARS[c]) {
                return false;
            }
        }
        return true;
    }
}
