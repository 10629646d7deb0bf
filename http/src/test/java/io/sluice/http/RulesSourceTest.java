package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RulesSourceTest {

    @TempDir
    Path dir;

    @Test
    void aFileStampChangesWithItsModificationTimeOrSize() throws IOException {
        Path file = dir.resolve("rules.yaml");
        Files.writeString(file, "rules: []");
        Files.setLastModifiedTime(file, FileTime.fromMillis(1_000_000));
        RulesSource source = RulesSource.file(file);
        Object before = source.stamp();

        Files.setLastModifiedTime(file, FileTime.fromMillis(2_000_000));

        assertThat(source.stamp()).isNotEqualTo(before).isEqualTo(source.stamp());
        assertThat(source.read()).isEqualTo("rules: []");
        assertThat(source.name()).isEqualTo(file.toString());
    }

    @Test
    void aResourceInsideAPackedWarIsReadThroughItsUrl() throws IOException {
        Path war = dir.resolve("app.war");
        try (OutputStream out = Files.newOutputStream(war); JarOutputStream jar = new JarOutputStream(out)) {
            jar.putNextEntry(new JarEntry("WEB-INF/sluice-rules.yaml"));
            jar.write("rules: [{name: a, limit: 1/s}]".getBytes(StandardCharsets.UTF_8));
            jar.closeEntry();
        }
        URL url = new URL("jar:" + war.toUri() + "!/WEB-INF/sluice-rules.yaml");
        RulesSource source = RulesSource.url("/WEB-INF/sluice-rules.yaml", url);

        assertThat(source.read()).isEqualTo("rules: [{name: a, limit: 1/s}]");
        assertThat(source.stamp()).isEqualTo(source.stamp());
        assertThat(source.name()).isEqualTo("/WEB-INF/sluice-rules.yaml");
    }

    @Test
    void oversizedAndNonUtf8FilesAreRefused() throws IOException {
        Path big = dir.resolve("big.yaml");
        Files.write(big, new byte[RulesSource.MAX_BYTES + 1]);
        Path latin1 = dir.resolve("latin1.yaml");
        Files.write(latin1, new byte[] {'#', ' ', (byte) 0xe9});

        assertThatThrownBy(() -> RulesSource.file(big).read()).isInstanceOf(IOException.class)
                .hasMessage("larger than 1048576 bytes");
        assertThatThrownBy(() -> RulesSource.file(latin1).read()).isInstanceOf(IOException.class)
                .as("a reload logs only the message: it says why").hasMessage("not valid UTF-8 at byte 2 (0xe9)");
    }

    @Test
    void inAWebAppWebInfIsTheExplodedFileThenTheResourceAndAnythingElseAFilePath() throws IOException {
        Path exploded = dir.resolve("WEB-INF/sluice-rules.yaml");
        Files.createDirectories(exploded.getParent());
        Files.writeString(exploded, "rules: []");
        URL packed = exploded.toUri().toURL();

        RulesSource file = RulesSource.inWebApp(path -> exploded.toString(), path -> null, "/WEB-INF/sluice-rules.yaml");
        assertThat(file.name()).as("an exploded WAR: the file, reloadable").isEqualTo(exploded.toString());

        RulesSource resource = RulesSource.inWebApp(path -> null, path -> packed, "/WEB-INF/sluice-rules.yaml");
        assertThat(resource.name()).as("a packed WAR: the resource").isEqualTo("/WEB-INF/sluice-rules.yaml");
        assertThat(resource.read()).isEqualTo("rules: []");

        assertThat(RulesSource.inWebApp(path -> null, path -> null, "/WEB-INF/missing.yaml")).isNull();
        assertThat(RulesSource.inWebApp(path -> null, path -> null, exploded.toString()).name())
                .as("a file path").isEqualTo(exploded.toString());
    }
}
