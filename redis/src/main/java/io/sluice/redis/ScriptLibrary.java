package io.sluice.redis;

import io.sluice.core.algorithm.Algorithms;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What runs on the servers ({@link RedisScript} calls it): {@code sluice.lua} with every algorithm's fragment
 * ({@link ScriptAssembly}), as a script ({@code EVALSHA}, by its SHA-1) and as a function library for Redis 7 and later
 * ({@code FCALL}): {@code sluice_<SHA-1 of its code, 16 hex digits>}, and {@code sluice_<hex>_n} for a Cluster batch
 * across slots.
 */
final class ScriptLibrary {

    private static final String SCRIPT = ScriptAssembly.assemble(skeleton(), Algorithms.all(), false);
    static final byte[] SCRIPT_BYTES = SCRIPT.getBytes(StandardCharsets.UTF_8);
    static final byte[] SHA_BYTES = sha1(SCRIPT).getBytes(StandardCharsets.US_ASCII);

    /**
     * The function library up to the body of its function, the skeleton's text for a function (its {@code --@
     * function} blocks: {@link ScriptAssembly}). The library functions the body reads ({@code floor} and the others)
     * are the library's, kept from call to call, set by the first call (loading a library runs without {@code math}
     * and {@code string}), and so are the globals {@code tonumber} and {@code redis}: a function reads a global
     * through its library's metatable, two lookups, which cost about 3% of a fast call as the body reads them (read
     * once by {@code globals}, written before the locals that replace them; {@code register} is the loader's
     * {@code redis.register_function}). {@code policies}: the fast modes' policies, parsed by the body, by their
     * argument, the same string call after call (at most 256, then anew), so that a fast call parses no number (each
     * costs about 3% of it).
     */
    static final String FUNCTION_HEAD = """
            local function globals() return math, string, tonumber, redis end
            local register = redis.register_function
            local floor, ceil, byte, sub, format, tonumber, redis
            local policies, kept = {}, 0
            local function remember(s, p)
              if kept == 256 then policies, kept = {}, 0 end
              policies[s], kept = p, kept + 1
            end
            local function sluice(KEYS, ARGV)
            if not floor then
              local math, string
              math, string, tonumber, redis = globals()
              floor, ceil, byte, sub, format = math.floor, math.ceil, string.byte, string.sub, string.format
            end
            """;
    /** The function's code: the skeleton's text for a function as the body of a Lua function of KEYS and ARGV. */
    private static final String FUNCTION_CODE = FUNCTION_HEAD + ScriptAssembly.assemble(skeleton(), Algorithms.all(),
            true) + "\nend\n";
    /**
     * The library's second function, {@code sluice_<hex>_n} ({@link RedisScript#across}): a fast batch whose keys live
     * in several hash slots of one Cluster node, called with no declared keys (a call's declared keys must share a
     * slot, with or without flags) and its keys as its first arguments, after their number; the flag
     * {@code allow-cross-slot-keys} lets its commands touch several slots of the node. The body reads them one by one
     * ({@code KEYS.across}), each before anything is written, so a key the node does not serve fails the call with
     * nothing written.
     */
    static final String ACROSS_CODE = """
            local function across(_, args)
              local n = args[1] + 0
              local keys, argv = {across = true}, {}
              for i = 1, n do keys[i] = args[i + 1] end
              for i = n + 2, #args do argv[i - n - 1] = args[i] end
              return sluice(keys, argv)
            end
            """;
    /**
     * The name of the library and of its one function: the hash of the code, so that two versions of Sluice sharing a
     * Redis each call their own, and {@code FUNCTION LOAD REPLACE} can only replace a library with the same code. Its
     * first 64 bits: {@code FCALL} hashes the name twice per call, each character about 20 instructions of Redis's
     * (the whole SHA-1 cost a fast call 1%).
     */
    static final String FUNCTION = "sluice_" + sha1(FUNCTION_CODE + ACROSS_CODE).substring(0, 16);
    static final byte[] FUNCTION_BYTES = FUNCTION.getBytes(StandardCharsets.US_ASCII);
    static final byte[] ACROSS_BYTES = (FUNCTION + "_n").getBytes(StandardCharsets.US_ASCII);
    static final byte[] LIBRARY_BYTES = library().getBytes(StandardCharsets.UTF_8);

    private ScriptLibrary() {}

    /** @return the script Redis runs: the skeleton with every registered algorithm's fragment (tests call it by hand) */
    static String text() {
        return SCRIPT;
    }

    /** @return the name of the function, and of its library */
    static String function() {
        return FUNCTION;
    }

    /**
     * @return the function library: the skeleton's text for a function as the body of a function whose parameters
     *     {@code KEYS} and {@code ARGV} stand for the globals of the same name that a script reads
     */
    static String library() {
        return "#!lua name=" + FUNCTION + "\n" + FUNCTION_CODE + ACROSS_CODE
                + "register{function_name='" + FUNCTION + "', callback=sluice}\n"
                + "register{function_name='" + FUNCTION + "_n', callback=across, flags={'allow-cross-slot-keys'}}\n";
    }

    private static String skeleton() {
        return resource("sluice.lua");
    }

    /** @return the text of a script beside this class in the jar: {@code sluice.lua}, {@code settings.lua} */
    static String resource(String name) {
        try (InputStream in = ScriptLibrary.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the sluice-redis jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + name, e);
        }
    }

    /** @return the SHA-1 of a script's text in hex, as {@code EVALSHA} names it */
    static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is part of every Java platform", e);
        }
    }
}
