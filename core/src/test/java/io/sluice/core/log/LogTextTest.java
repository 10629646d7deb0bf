package io.sluice.core.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class LogTextTest {

    @Test
    void shortCleanTextIsLoggedAsItIs() {
        String text = "rule \"per-ip\": 203.0.113.9 C:\\temp é 日本 😀";

        assertThat(LogText.safe(text)).isSameAs(text);
        assertThat(LogText.safe((String) null)).isEqualTo("null");
    }

    @Test
    void controlCharactersAreEscapedSoThatNoLineCanBeForged() {
        assertThat(LogText.safe("a\r\nFORGED\tb")).isEqualTo("a\\r\\nFORGED\\tb");
        assertThat(LogText.safe("\u001b[31mred\u001b[0m\u0000\u007f")).isEqualTo("\\u001b[31mred\\u001b[0m\\u0000\\u007f");
        assertThat(LogText.safe("NEL\u0085 CSI\u009b LS\u2028 PS\u2029")).as("C1 controls, Unicode line breaks")
                .isEqualTo("NEL\\u0085 CSI\\u009b LS\\u2028 PS\\u2029");
        assertThat(LogText.safe("user\u202egnp.exe \u2066x\u2069 \u200f\u061c")).as("bidirectional controls")
                .isEqualTo("user\\u202egnp.exe \\u2066x\\u2069 \\u200f\\u061c");
        assertThat(LogText.safe("lone \ud800 and \udc00, a pair \ud83d\ude00 kept"))
                .isEqualTo("lone \\ud800 and \\udc00, a pair \ud83d\ude00 kept");
    }

    @Test
    void longTextIsCutAndSaysHowLongItWas() {
        String safe = LogText.safe("x".repeat(100_000));

        assertThat(safe).startsWith("x".repeat(LogText.MAX_LENGTH)).endsWith("x... (100000 characters)")
                .hasSize(LogText.MAX_LENGTH + "... (100000 characters)".length());
        assertThat(LogText.safe("x".repeat(LogText.MAX_LENGTH))).as("at the bound: whole")
                .isEqualTo("x".repeat(LogText.MAX_LENGTH));
    }

    @Test
    void aCutKeepsEscapesAndSurrogatePairsWhole() {
        String escapes = LogText.safe("\u001b".repeat(1_000));
        assertThat(escapes).startsWith("\\u001b").endsWith("\\u001b... (1000 characters)")
                .hasSize(LogText.MAX_LENGTH / 6 * 6 + "... (1000 characters)".length());

        String pairs = LogText.safe("x" + "\ud83d\ude00".repeat(1_000));      // a pair straddles the bound
        assertThat(pairs).endsWith("\ud83d\ude00... (2001 characters)").hasSize(LogText.MAX_LENGTH - 1 + 21);
    }

    @Test
    void anExceptionIsSummarizedWithItsClassAndItsMessageMadeSafe() {
        assertThat(LogText.summary(new NumberFormatException("For input string: \"1\r\nFORGED\"")))
                .isEqualTo("java.lang.NumberFormatException: For input string: \"1\\r\\nFORGED\"");
        assertThat(LogText.summary(new IllegalStateException())).isEqualTo("java.lang.IllegalStateException");
        assertThat(LogText.summary(null)).isEqualTo("null");
    }

    @Test
    void anExceptionLoggedWithItsStackTraceKeepsItsClassesFramesCausesAndSuppressedWithEveryMessageMadeSafe() {
        IllegalStateException cause = new IllegalStateException("cause \r\nFORGED 1");
        String message = "top \r\nFORGED 2 " + "y".repeat(10_000);
        RuntimeException thrown = new RuntimeException(message, cause);
        thrown.addSuppressed(new IllegalArgumentException("suppressed \nFORGED 3"));

        Throwable safe = LogText.safe(thrown);
        String printed = printed(safe);

        assertThat(printed.lines()).as(printed).noneMatch(l -> l.startsWith("FORGED")).allMatch(l -> l.length() < 1_000);
        assertThat(printed).startsWith("java.lang.RuntimeException: top \\r\\nFORGED 2 yyy")
                .contains("y... (" + message.length() + " characters)")
                .contains("Caused by: java.lang.IllegalStateException: cause \\r\\nFORGED 1")
                .contains("Suppressed: java.lang.IllegalArgumentException: suppressed \\nFORGED 3")
                .contains("\tat " + getClass().getName() + ".anExceptionLoggedWithItsStackTrace");
        assertThat(safe.getStackTrace()).isEqualTo(thrown.getStackTrace());
        assertThat(safe.getCause().getStackTrace()).isEqualTo(cause.getStackTrace());
        assertThat(safe.getMessage()).as("what a formatter that prints getMessage() shows")
                .startsWith("java.lang.RuntimeException: top \\r\\nFORGED 2");
        assertThat(LogText.safe((Throwable) null)).isNull();
    }

    @Test
    void aCircularChainOfCausesEnds() {
        IllegalStateException a = new IllegalStateException("a");
        IllegalArgumentException b = new IllegalArgumentException("b", a);
        a.initCause(b);

        String printed = printed(LogText.safe(a));

        assertThat(printed).contains("Caused by: java.lang.IllegalArgumentException: b");
        assertThat(List.of(printed.split("Caused by"))).hasSize(2);
    }

    private static String printed(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out.toString();
    }
}
