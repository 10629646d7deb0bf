package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.testing.ManualTimeSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReloadingRulesTest {

    private static final long TEN_SECONDS = 10_000_000;

    @TempDir
    Path dir;

    private final ManualTimeSource time = new ManualTimeSource();
    private final AtomicInteger parses = new AtomicInteger();
    private final List<String> log = new ArrayList<>();
    private final Logger logger = Logger.getLogger(ReloadingRules.class.getName());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            log.add(r.getLevel() + " " + r.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };
    private Path file;
    private long mtime = 1_700_000_000_000L;

    @BeforeEach
    void capture() {
        logger.addHandler(capture);
    }

    @AfterEach
    void release() {
        logger.removeHandler(capture);
    }

    private void write(String yaml) throws IOException {
        Files.writeString(file, yaml);
        mtime += 1_000;            // a new modification time, set explicitly: no sleeping for the clock to tick
        Files.setLastModifiedTime(file, FileTime.fromMillis(mtime));
    }

    private ReloadingRules rules(long intervalMicros) throws IOException {
        file = dir.resolve("rules.yaml");
        write("rules: [{name: first, limit: 10/s}]");
        return new ReloadingRules("rules (init-param)", RulesSource.file(file), text -> {
            parses.incrementAndGet();
            return RulesFile.parse("rules.yaml", text, ClientIpResolver.direct());
        }, intervalMicros, time);
    }

    @Test
    void aChangedFileIsLoadedAtTheFirstLookAfterTheInterval() throws IOException {
        ReloadingRules rules = rules(TEN_SECONDS);
        write("rules: [{name: second, limit: 10/s}]");

        time.advanceMicros(TEN_SECONDS - 1);
        assertThat(rules.get().names()).as("not looked at yet").containsExactly("first");

        time.advanceMicros(1);
        assertThat(rules.get().names()).containsExactly("second");
        assertThat(log).contains("INFO rules reloaded from " + file + ": 1 rule(s) [second]");
    }

    @Test
    void aDeletedFileKeepsTheRulesAndIsLoggedOnceNotAtEveryLook() throws IOException {
        ReloadingRules rules = rules(TEN_SECONDS);
        Files.delete(file);
        for (int i = 0; i < 6; i++) {
            time.advance(Duration.ofSeconds(10));
            assertThat(rules.get().names()).containsExactly("first");
        }
        assertThat(log).hasSize(1).allMatch(l -> l.startsWith("WARNING rules file " + file + " cannot be examined"));

        write("rules: [{name: back, limit: 10/s}]");
        time.advance(Duration.ofSeconds(10));
        assertThat(rules.get().names()).containsExactly("back");
        assertThat(log).contains("INFO rules file " + file + " can be examined again");
    }

    /** A stamp that may fail to be taken, as a file's attributes may. */
    @FunctionalInterface
    private interface Stamp {
        Object take() throws IOException;
    }

    /** Rules reloaded every ten seconds from a source in memory: its stamp and its text as the test gives them. */
    private ReloadingRules inMemory(Stamp stamp, java.util.function.Supplier<String> text) {
        RulesSource source = new RulesSource() {
            @Override
            public String name() {
                return "rules.yaml";
            }

            @Override
            public Object stamp() throws IOException {
                return stamp.take();
            }

            @Override
            public String read() {
                return text.get();
            }
        };
        return new ReloadingRules("rules (init-param)", source,
                t -> RulesFile.parse("rules.yaml", t, ClientIpResolver.direct()), TEN_SECONDS, time);
    }

    @Test
    void aFileWrittenToWhileReadIsReadAgainNotAppliedHalfWritten() {
        AtomicInteger version = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean midWrite = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<String> text = new java.util.concurrent.atomic.AtomicReference<>(
                "rules: [{name: first, limit: 10/s}]");
        ReloadingRules rules = inMemory(version::get, () -> {
            if (midWrite.getAndSet(false)) {
                version.incrementAndGet();                 // the writer goes on while this reads a valid prefix
                return "rules: []";
            }
            return text.get();
        });

        text.set("rules: [{name: second, limit: 10/s}]");
        version.incrementAndGet();
        midWrite.set(true);
        time.advance(Duration.ofSeconds(10));
        assertThat(rules.get().names()).as("the half-written read is not applied").containsExactly("first");
        time.advance(Duration.ofSeconds(10));
        assertThat(rules.get().names()).as("read again once it holds still").containsExactly("second");
    }

    @Test
    void aFileThatCannotBeExaminedRightAfterItsReadIsReadAgainNotLostUntilItsNextChange() {
        java.util.concurrent.atomic.AtomicBoolean failNextLook = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean stallOnce = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<String> text = new java.util.concurrent.atomic.AtomicReference<>(
                "rules: [{name: first, limit: 10/s}]");
        ReloadingRules rules = inMemory(() -> {
            if (failNextLook.getAndSet(false)) {
                throw new IOException("stat failed for a moment");
            }
            return text.get().length();
        }, () -> {
            if (stallOnce.getAndSet(false)) {
                failNextLook.set(true);                    // the look right after this read fails, once
            }
            return text.get();
        });
        text.set("rules: [{name: second, limit: 100/s}]");
        stallOnce.set(true);
        time.advance(Duration.ofSeconds(10));
        assertThat(rules.get().names()).containsExactly("first");
        time.advance(Duration.ofSeconds(10));
        assertThat(rules.get().names()).as("read again at the next look").containsExactly("second");
        assertThat(log).noneMatch(l -> l.contains("invalid"));
    }

    @Test
    void aFileThatIsNoRegularFileIsNotRead() throws IOException {
        Path directory = Files.createDirectories(dir.resolve("a-directory"));
        assertThatThrownBy(() -> RulesSource.file(directory).read()).isInstanceOf(IOException.class)
                .hasMessage("not a regular file");
    }

    @Test
    void anUnchangedFileIsNotReadAgain() throws IOException {
        ReloadingRules rules = rules(TEN_SECONDS);

        for (int i = 0; i < 5; i++) {
            time.advance(Duration.ofSeconds(10));
            rules.get();
        }

        assertThat(parses).hasValue(1);
    }

    @Test
    void anInvalidNewFileKeepsTheOldRulesAndSaysWhyOnce() throws IOException {
        ReloadingRules rules = rules(TEN_SECONDS);
        write("rules: [{name: second, limit: lots}]");

        time.advance(Duration.ofSeconds(10));
        assertThat(rules.get().names()).containsExactly("first");
        time.advance(Duration.ofSeconds(10));
        rules.get();

        assertThat(log).hasSize(1);
        assertThat(log.get(0)).startsWith("WARNING rules file " + file + " changed but is invalid; keeping the previous "
                + "1 rule(s) [first]: rules.yaml: rules[0] (second).limit: expected");

        write("rules: [{name: third, limit: 1/s}]");
        time.advance(Duration.ofSeconds(10));
        assertThat(rules.get().names()).as("a fixed file is picked up").containsExactly("third");
    }

    @Test
    void aDeletedFileKeepsTheOldRules() throws IOException {
        ReloadingRules rules = rules(TEN_SECONDS);
        Files.delete(file);

        time.advance(Duration.ofSeconds(10));

        assertThat(rules.get().names()).containsExactly("first");
        assertThat(log).singleElement().asString().startsWith("WARNING rules file " + file + " cannot be examined");
    }

    @Test
    void aZeroIntervalNeverReloads() throws IOException {
        ReloadingRules rules = rules(0);
        write("rules: [{name: second, limit: 10/s}]");

        time.advance(Duration.ofDays(1));

        assertThat(rules.get().names()).containsExactly("first");
        assertThat(rules.reloadIfChanged()).as("an explicit reload still works").isTrue();
        assertThat(rules.get().names()).containsExactly("second");
    }

    @Test
    void aClockSetBackDoesNotStopReloading() throws IOException {
        ReloadingRules rules = rules(TEN_SECONDS);
        write("rules: [{name: second, limit: 10/s}]");

        time.advance(Duration.ofHours(-1));

        assertThat(rules.get().names()).containsExactly("second");
    }

    @Test
    void aFileThatCannotBeReadAtStartFailsStartUp() {
        assertThatThrownBy(() -> new ReloadingRules("SLUICE_RULES (environment variable)",
                RulesSource.file(dir.resolve("nope.yaml")), text -> null, TEN_SECONDS, time))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("SLUICE_RULES (environment variable): cannot read the rules file (")
                .hasMessageEndingWith("got \"" + dir.resolve("nope.yaml") + "\"");
    }
}
