package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.algorithm.Algorithms;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The two forms of the script: the text {@code EVALSHA} runs (Redis 6.2), the assembly as it is, and the function
 * library {@code FCALL} runs (Redis 7 and later), the same text as a function's body, named by the hash of its code.
 */
class RedisScriptTest {

    @Test
    void theScriptIsTheAssemblyByteForByte() throws Exception {
        assertThat(ScriptLibrary.text()).isEqualTo(ScriptAssembly.assemble(skeleton(), Algorithms.all()));
        assertThat(count(ScriptLibrary.text(), "redis.replicate_commands()")).as("needed on 6.2 before writing after TIME")
                .isEqualTo(1);
    }

    @Test
    void theLibraryIsTheScriptAsAFunctionOfKeysAndArgvNamedByItsHash() throws Exception {
        String name = ScriptLibrary.function();
        assertThat(name).matches("sluice_[0-9a-f]{16}");
        String library = ScriptLibrary.library();
        String shebang = "#!lua name=" + name + "\n";
        // registered by the loader's redis.register_function: the library's own redis is the one its calls see
        // and its second function, a fast batch across the slots of a Cluster node (RedisScript.across)
        String register = "register{function_name='" + name + "', callback=sluice}\n"
                + "register{function_name='" + name + "_n', callback=across, flags={'allow-cross-slot-keys'}}\n";
        assertThat(library).startsWith(shebang).endsWith(register);

        String code = library.substring(shebang.length(), library.length() - register.length());
        assertThat(name).as("the hash of the code: another version of Sluice has another name")
                .isEqualTo("sluice_" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                        .digest(code.getBytes(StandardCharsets.UTF_8))).substring(0, 16));
        // the skeleton's text for a function: no redis.replicate_commands (Redis 7 replicates a script's effects
        // anyway), the library functions its library's, and a fast mode's policy in one argument, parsed once
        assertThat(code).isEqualTo(ScriptLibrary.FUNCTION_HEAD + ScriptAssembly.assemble(skeleton(), Algorithms.all(),
                true) + "\nend\n" + ScriptLibrary.ACROSS_CODE);
        assertThat(code).doesNotContain("replicate_commands").doesNotContain("math.floor, math.ceil, string.byte,"
                + " string.sub, string.format\nif #mode == 1").contains("local function sluice(KEYS, ARGV)\n")
                .contains("local P = policies[mode]\n").contains("local cap, iv = P[2], P[3]\n")
                .doesNotContain("tonumber(A[2])");
        // the script's fast mode reads its numbers as arguments; only its fast batch (mode 'B') parses a policy
        String script = ScriptLibrary.text();
        String fastMode = script.substring(0, script.indexOf("if mode == 'B' then"));
        assertThat(fastMode).contains("local cap, iv = tonumber(A[2]), tonumber(A[3])\n").doesNotContain("P[2]");
        assertThat(fastMode).contains("\nlocal policies, remember = nil, nil\n").doesNotContain("policies[");
        assertThat(script.substring(script.indexOf("if mode == 'B' then"))).contains("local cap, iv = P[2], P[3]\n");
    }

    /**
     * A fast mode's arguments, as the function reads them (the code and the policy's numbers in one argument, then
     * the time when the application's is passed) and as the script reads them (the code with the time, then each
     * number); any other call's arguments are the same for both.
     */
    @Test
    void theScriptGetsAFastModesNumbersAsArguments() {
        byte[] key = bytes("sluice:r:k");
        assertThat(strings(ScriptCodec.forScript(1, new byte[][] {key, bytes("g1000:250000")})))
                .containsExactly("sluice:r:k", "g", "1000", "250000");
        assertThat(strings(ScriptCodec.forScript(1, new byte[][] {key, bytes("g2:500001"), bytes("1700000000000000")})))
                .containsExactly("sluice:r:k", "g1700000000000000", "2", "500001");
        byte[][] evaluate = {key, bytes("e"), bytes("g"), bytes("2"), bytes("500001")};
        assertThat(ScriptCodec.forScript(1, evaluate)).isSameAs(evaluate);
        byte[][] batch = {key, key, bytes("b"), bytes("1"), bytes("e"), bytes("g"), bytes("1"), bytes("2")};
        assertThat(ScriptCodec.forScript(2, batch)).isSameAs(batch);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static List<String> strings(byte[][] params) {
        return Arrays.stream(params).map(b -> new String(b, StandardCharsets.US_ASCII)).toList();
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    private static String skeleton() throws IOException {
        try (InputStream in = RedisScript.class.getResourceAsStream("sluice.lua")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
