package io.sluice.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Engine;
import io.sluice.core.Limiter;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The README's programmatic quick start ("## The programmatic API") compiles and runs: its lines are those of
 * {@link #theReadmesLines()}, which this test holds to the README, line for line (the README's block may not drift
 * from the code below).
 */
class ReadmeSnippetsTest {

    private static final Path ROOT = Path.of("..");
    private static final Path SELF = Path.of("src/test/java/io/sluice/examples/ReadmeSnippetsTest.java");

    private int partnerCalls;

    private void callPartner() {
        partnerCalls++;
    }

    private long theReadmesLines() {
        // README begin
        Engine engine = Engine.builder().build();                                   // counters in memory
        Limiter partner = engine.limiter("partner-api", Policy.parse("100/1s"));
        if (partner.tryAcquire("account-42")) {
            callPartner();                                                          // at most 100 a second per account
        }
        Outcome o = engine.tryAcquire("partner-api", "account-42", Policy.parse("100/1s"), 1);
        long waitMicros = o.allowed() ? 0 : o.retryAfterMicros();                   // or wait for it: partner.acquire(...)
        // README end
        return waitMicros;
    }

    @Test
    void theProgrammaticQuickStartRuns() {
        assertThat(theReadmesLines()).isZero();
        assertThat(partnerCalls).isEqualTo(1);
    }

    @Test
    void theReadmeShowsExactlyTheseLines() throws IOException {
        assertThat(javaBlock(Files.readAllLines(ROOT.resolve("README.md")), "## The programmatic API"))
                .isEqualTo(between(Files.readAllLines(SELF), "// README begin", "// README end"));
    }

    /** @return the first ```java block after {@code heading}, its lines stripped */
    private static List<String> javaBlock(List<String> lines, String heading) {
        int at = lines.indexOf(heading);
        assertThat(at).as("README heading %s", heading).isNotNegative();
        int open = at + 1;
        while (open < lines.size() && !lines.get(open).equals("```java")) {
            open++;
        }
        assertThat(open).as("a ```java block under %s", heading).isLessThan(lines.size());
        List<String> block = new ArrayList<>();
        for (int i = open + 1; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
            block.add(lines.get(i).strip());
        }
        return block;
    }

    private static List<String> between(List<String> lines, String begin, String end) {
        List<String> out = new ArrayList<>();
        boolean in = false;
        for (String line : lines) {
            String s = line.strip();
            if (s.equals(end)) {
                break;
            }
            if (in) {
                out.add(s);
            }
            in |= s.equals(begin);
        }
        return out;
    }
}
