package io.sluice.redis;

import io.sluice.core.store.Check;
import java.util.Arrays;
import java.util.List;

/**
 * A request as part of a batch ({@link Coalescer}): its keys, and either its checks' fast modes' arguments (every
 * check enforced, of cost 1 and of an algorithm with a fast mode: the fast batch, mode {@code B}) or the arguments of
 * its call alone in the general mode, made when a batch needs them; {@code bytes} counts both, about.
 */
final class BatchRequest {
    private final ScriptCodec codec;
    private final List<Check> checks;
    private final byte[][] keys;
    private final byte[] now;
    private final byte[] requestId;
    /** Per check, its fast mode's one argument ({@code g1000:1000}), or null where a check has no fast mode. */
    private final byte[][] fast;
    private final int bytes;
    private byte[][] args;

    BatchRequest(ScriptCodec codec, List<Check> checks, byte[][] keys, byte[] now, byte[] requestId, byte[][] fast) {
        this.codec = codec;
        this.checks = checks;
        this.keys = keys;
        this.now = now;
        this.requestId = requestId;
        this.fast = fast;
        int b = 24 + now.length + (fast == null ? 16 * checks.size() : 0);
        for (byte[] f : fast == null ? new byte[0][] : fast) {
            b += f.length + 8;
        }
        for (byte[] k : keys) {
            b += k.length + 8;      // and about what RESP adds per argument
        }
        this.bytes = b;
    }

    byte[][] keys() {
        return keys;
    }

    /**
     * @return per check, its fast mode's one argument ({@code g1000:1000}); null where a check has none (or is a
     *     shadow check, or costs other than 1)
     */
    byte[][] fast() {
        return fast;
    }

    /** @return its time argument: the application's time, or empty where Redis's is read */
    byte[] now() {
        return now;
    }

    int bytes() {
        return bytes;
    }

    /** @return whether the request needs the script's library (mode {@code E}), which costs Redis more */
    boolean library() {
        return fast == null && args()[0][0] == 'E';
    }

    /** @return the arguments of its call alone in the general mode (its mode, its time, its checks...) */
    byte[][] args() {
        if (args == null) {
            byte[][] params = codec.params(checks, null, keys, now, requestId, false);
            args = Arrays.copyOfRange(params, keys.length, params.length);
        }
        return args;
    }

    /** @return the arguments of a call of this request alone, keys first (in its fast mode where it has one) */
    byte[][] single() {
        if (fast != null && fast.length == 1) {
            return now.length == 0 ? new byte[][] {keys[0], fast[0]} : new byte[][] {keys[0], fast[0], now};
        }
        byte[][] a = args();
        byte[][] params = Arrays.copyOf(keys, keys.length + a.length);
        System.arraycopy(a, 0, params, keys.length, a.length);
        return params;
    }
}
