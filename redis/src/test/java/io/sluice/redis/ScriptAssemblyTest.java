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
 * The script Redis runs is the skeleton with every registered algorithm's fragment, each once (a step also in its
 * algorithm's fast mode, from the same text), and tests named constants, never character codes written by hand.
 */
class ScriptAssemblyTest {

    /** A comparison of a code or a byte with a bare number: what {@code ${GCRA}} and {@code ${'4'}} replace. */
    private static final Pattern RAW_CODE = Pattern.compile("(\\bcode|\\bbyte\\([^)]*\\))\\s*[=~<>]=?\\s*\\d");

    @Test
    void everyAlgorithmIsRegisteredOnceWithACodeOfItsOwn() {
        List<Algorithm> registered = Algorithms.all().stream().map(Definition::algorithm).toList();
        // an algorithm the engine decides (adaptive concurrency) hands the store a concurrency check: no script
        List<Algorithm> stored = java.util.Arrays.stream(Algorithm.values()).filter(a -> !a.local()).toList();
        assertThat(registered).containsExactlyInAnyOrderElementsOf(stored);
        assertThat(Algorithms.all().stream().map(Definition::code).distinct()).hasSize(registered.size());
        for (Algorithm a : stored) {
            assertThat(Algorithms.definition(a).algorithm()).isEqualTo(a);
        }
    }

    @Test
    void theScriptHoldsEveryRegisteredFragmentOnce() {
        String script = ScriptLibrary.text();
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
        String script = ScriptLibrary.text();
        assertThat(script).contains("if fast == 'g' then").contains("  if code == 103 then");
        assertThat(script.indexOf("if fast == 'g' then")).isLessThan(script.indexOf("library = function()"));
    }

    @Test
    void theFastModeRunsTheAlgorithmsOwnStepWhichNoFragmentWritesTwice() {
        String script = ScriptLibrary.text();
        List<Definition> fast = Algorithms.all().stream().filter(Definition::fast).toList();
        assertThat(fast).extracting(Definition::algorithm).contains(Algorithm.GCRA);
        for (Definition d : Algorithms.all()) {
            assertThat(ScriptAssembly.sections(d.fragment(), d.lua())).as(d.fragment()).doesNotContainKey("fast");
        }
        int library = script.indexOf("library = function()");
        for (Definition d : fast) {
            String head = "if fast == '" + d.code() + "' then\n  local a, cost = 1, 1\n";
            String step = ScriptAssembly.sections(d.fragment(), d.lua()).get("step");
            String folded = ScriptAssembly.substitute(ScriptAssembly.folded(step, false), Algorithms.all());
            assertThat(count(script, Pattern.compile(Pattern.quote(head)))).as("%s's fast mode", d.algorithm())
                    .isEqualTo(1);
            int at = script.indexOf(head);
            int end = script.indexOf("\nend\n", at);
            String block = script.substring(at, end);
            assertThat(end).isLessThan(library);
            assertThat(block).as("the fast mode of %s runs its step", d.algorithm()).contains(folded)
                    .doesNotContain("A[a + ").doesNotContain("--@");
            assertThat(count(block, Pattern.compile("redis\\.call\\('PSETEX'"))).isEqualTo(1);
            assertThat(count(block, Pattern.compile("\\breturn\\b"))).isEqualTo(3);
            // the loop's copy, as written
            assertThat(script.substring(library)).contains(ScriptAssembly.substitute(step, Algorithms.all()));
        }
        assertThat(script).doesNotContain("${CODE}");
    }

    @Test
    void theFastStepReadsItsPolicysNumbersAtConstantIndexesOrParsedByTheFunction() {
        String step = "local c, i = tonumber(A[a + 1]), tonumber(A[a + 12])\n    a = a + 3\n"
                + "    x = AA[a + 1] + A[a + b]\n";
        assertThat(ScriptAssembly.folded(step, false)).isEqualTo("local c, i = tonumber(A[2]), tonumber(A[13])\n"
                + "    a = a + 3\n    x = AA[a + 1] + A[a + b]\n");
        assertThat(ScriptAssembly.folded(step, true)).isEqualTo("local c, i = P[2], P[13]\n    a = a + 3\n"
                + "    x = AA[a + 1] + A[a + b]\n");
        assertThatThrownBy(() -> ScriptAssembly.folded("local c, s = tonumber(A[a + 1]), A[a + 2]\n", true))
                .hasMessageContaining("reads its arguments as tonumber(A[a + k]) alone");
        // the test that a mode's code is a fast mode's
        assertThat(ScriptAssembly.substitute("if ${FAST} then", Algorithms.all())).isEqualTo("if fast == 'g' then");
        assertThat(ScriptAssembly.substitute("if ${FAST} then",
                List.of(Algorithms.definition(Algorithm.TOKEN_BUCKET)))).isEqualTo("if false then");
    }

    @Test
    void aFastModeNeedsAnInlineStepAndATemplate() throws IOException {
        Definition window = Algorithms.definition(Algorithm.SLIDING_WINDOW);
        Definition fastWindow = new Definition() {
            @Override
            public Algorithm algorithm() {
                return window.algorithm();
            }

            @Override
            public char code() {
                return window.code();
            }

            @Override
            public boolean inline() {
                return window.inline();
            }

            @Override
            public void arguments(io.sluice.core.policy.Policy policy, Arguments out) {
                window.arguments(policy, out);
            }

            @Override
            public boolean fast() {
                return true;
            }

            @Override
            public String lua() {
                return window.lua();
            }
        };
        assertThat(window.inline()).isFalse();
        assertThatThrownBy(() -> ScriptAssembly.assemble(skeleton(), List.of(fastWindow)))
                .hasMessageContaining("needs an inline step");
        assertThatThrownBy(() -> ScriptAssembly.sections("x.lua", "--@ fast\n"))
                .hasMessageContaining("x.lua: unknown section fast");
        String skeleton = skeleton();
        assertThatThrownBy(() -> ScriptAssembly.assemble(skeleton.replace("--@ fast end\n", ""), Algorithms.all()))
                .hasMessageContaining("without --@ fast end");
        assertThatThrownBy(() -> ScriptAssembly.assemble(skeleton.replace("--@ fast step\n", ""), Algorithms.all()))
                .hasMessageContaining("one line --@ fast step");
        assertThatThrownBy(() -> ScriptAssembly.assemble(skeleton.replace("  local a, cost = 1, 1\n",
                "  local a, cost = 2, 1\n"), Algorithms.all())).hasMessageContaining("must set a = 1");
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
