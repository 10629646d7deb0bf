package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.algorithm.Algorithms;
import io.sluice.core.algorithm.Definition;
import io.sluice.core.policy.Algorithm;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The script Redis runs is the skeleton with every registered algorithm's fragment, each once, and tests named
 * constants, never character codes written by hand.
 */
class ScriptAssemblyTest {

    /** A comparison of a code or a byte with a bare number: what {@code ${GCRA}} and {@code ${'4'}} replace. */
    private static final Pattern RAW_CODE = Pattern.compile("(\\bcode|\\bbyte\\([^)]*\\))\\s*[=~<>]=?\\s*\\d");

    @Test
    void everyAlgorithmIsRegisteredOnceWithACodeOfItsOwn() {
        List<Algorithm> registered = Algorithms.all().stream().map(Definition::algorithm).toList();
        assertThat(registered).containsExactlyInAnyOrder(Algorithm.values());
        assertThat(Algorithms.all().stream().map(Definition::code).distinct()).hasSize(registered.size());
        for (Algorithm a : Algorithm.values()) {
            assertThat(Algorithms.definition(a).algorithm()).isEqualTo(a);
        }
    }

    @Test
    void theScriptHoldsEveryRegisteredFragmentOnce() {
        String script = RedisScript.text();
        for (Definition d : Algorithms.all()) {
            assertThat(count(script, Pattern.compile("\\bcode == " + (int) d.code() + "\\b")))
                    .as("the step of %s is tried once", d.algorithm()).isEqualTo(1);
            for (String section : ScriptAssembly.sections(d.fragment(), d.lua()).values()) {
                assertThat(count(script, Pattern.compile(Pattern.quote(ScriptAssembly.substitute(section,
                        Algorithms.all()))))).as("a section of %s", d.fragment()).isEqualTo(1);
            }
        }
        assertThat(script).doesNotContain("${").doesNotContain("--@ ");
    }

    @Test
    void noCharacterCodeIsWrittenByHand() throws IOException {
        List<String> sources = new ArrayList<>();
        sources.add(skeleton());
        Algorithms.all().forEach(d -> sources.add(d.lua()));
        for (String lua : sources) {
            Matcher raw = RAW_CODE.matcher(lua);
            assertThat(raw.find() ? raw.group() : null).as("a character code written as a number").isNull();
        }
        assertThat(RAW_CODE.matcher("if code == 103 then").find()).as("the pattern itself").isTrue();
        assertThat(RAW_CODE.matcher("byte(v, 1) == 52").find()).as("the pattern itself").isTrue();
    }

    @Test
    void gcraIsTriedFirstAndHasItsFastModeBeforeTheLibrary() {
        String script = RedisScript.text();
        assertThat(script).contains("if mode == 'g' then").contains("  if code == 103 then");
        assertThat(script.indexOf("if mode == 'g' then")).isLessThan(script.indexOf("library = function()"));
    }

    @Test
    void anUnknownConstantOrSectionIsRefusedAtAssembly() {
        assertThatThrownBy(() -> ScriptAssembly.substitute("if code == ${NO_SUCH} then", Algorithms.all()))
                .hasMessageContaining("${NO_SUCH}");
        assertThatThrownBy(() -> ScriptAssembly.sections("x.lua", "--@ steps\n"))
                .hasMessageContaining("x.lua: unknown section steps");
        assertThat(ScriptAssembly.substitute("${'a'} ${GCRA} ${GCRA_MODE}", Algorithms.all())).isEqualTo("97 103 'g'");
    }

    private static int count(String text, Pattern pattern) {
        Matcher m = pattern.matcher(text);
        int n = 0;
        while (m.find()) {
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
