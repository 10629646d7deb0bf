package io.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class KeyMemoTest {

    @Test
    void aKeySeenAgainIsNotWrittenAgain() {
        AtomicInteger writes = new AtomicInteger();
        KeyMemo memo = new KeyMemo(k -> {
            writes.incrementAndGet();
            return "w:" + k;
        });
        KeyMemo.Entry first = memo.get("client-1");
        assertSame(first, memo.get("client-1"));
        assertEquals(1, writes.get());
        assertEquals("w:client-1", first.written);
        assertArrayEquals("w:client-1".getBytes(StandardCharsets.UTF_8), first.bytes);
    }

    @Test
    void keysThatShareASlotAreEachAnsweredWithTheirOwn() {
        KeyMemo memo = new KeyMemo(k -> "w:" + k);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 4 * KeyMemo.SLOTS; i++) {      // more keys than slots: every slot taken over
            keys.add("client-" + i);
        }
        for (int round = 0; round < 2; round++) {
            for (String key : keys) {
                assertEquals("w:" + key, memo.get(key).written);
            }
        }
    }

    @Test
    void hashedKeysAreTheKeyedHashWithOrWithoutTheMemo() {
        ClientKeys one = ClientKeys.hashed("a secret of sixteen characters", "sluice");
        ClientKeys other = ClientKeys.hashed("a secret of sixteen characters", "sluice");
        for (int i = 0; i < 2 * KeyMemo.SLOTS; i++) {
            assertEquals(one.apply("client-" + i), other.apply("client-" + i));
        }
        String hashed = one.apply("203.0.113.7");
        assertEquals(17, hashed.length());
        assertEquals('#', hashed.charAt(0));
        assertNotEquals(hashed, ClientKeys.hashed("another secret of some length", "sluice").apply("203.0.113.7"));
        assertArrayEquals(hashed.getBytes(StandardCharsets.UTF_8), one.bytes("203.0.113.7"));
    }

    @Test
    void aHashIsWrittenAsWhenTheWholeDigestWasEncoded() {      // keys stored by earlier versions stay the same
        Random random = new Random(31);
        for (int i = 0; i < 1000; i++) {
            byte[] digest = new byte[32];
            random.nextBytes(digest);
            String whole = Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
            assertEquals("#" + whole.substring(0, 16), RedisKeys.tagged(digest, 16));
            assertEquals("#" + whole.substring(0, 22), RedisKeys.tagged(digest, 22));
        }
    }
}
