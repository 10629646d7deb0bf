package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.algorithm.Algorithms;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The two forms of the script: the text {@code EVALSHA} runs (Redis 6.2), the assembly as it is, and the function
 * library {@code FCALL} runs (Redis 7 and later), the same text as a function's body, named by the hash of its code.
 */
class RedisScriptTest {

    @Test
    void theScriptIsTheAssemblyByteForByte() throws Exception {
        assertThat(RedisScript.text()).isEqualTo(ScriptAssembly.assemble(skeleton(), Algorithms.all()));
        assertThat(count(RedisScript.text(), "redis.replicate_commands()")).as("needed on 6.2 before writing after TIME")
                .isEqualTo(1);
    }

    @Test
    void theLibraryIsTheScriptAsAFunctionOfKeysAndArgvNamedByItsHash() throws Exception {
        String name = RedisScript.function();
        assertThat(name).matches("sluice_[0-9a-f]{40}");
        String library = RedisScript.library();
        String shebang = "#!lua name=" + name + "\n";
        String register = "redis.register_function{function_name='" + name + "', callback=sluice}\n";
        assertThat(library).startsWith(shebang).endsWith(register);

        String code = library.substring(shebang.length(), library.length() - register.length());
        assertThat(name).as("the hash of the code: another version of Sluice has another name")
                .isEqualTo("sluice_" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                        .digest(code.getBytes(StandardCharsets.UTF_8))));
        // a function has no redis.replicate_commands (Redis 7 replicates a script's effects anyway), and the locals
        // that hold library functions are its library's: the two changes
        assertThat(RedisScript.text()).contains(RedisScript.LOCALS);
        assertThat(code).isEqualTo(RedisScript.FUNCTION_HEAD + RedisScript.text().replace("redis.replicate_commands()",
                "").replace(RedisScript.LOCALS, "") + "\nend\n");
        assertThat(code).doesNotContain("replicate_commands").doesNotContain(RedisScript.LOCALS)
                .contains("local function sluice(KEYS, ARGV)\n");
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
