package io.sluice.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of README.md, docs/*.md, CHANGELOG.md and benchmarks/RESULTS.md names a file that exists, and,
 * where it names an anchor of a Markdown file, a heading of that file (GitHub's slugs: lower case, punctuation but
 * {@code -} and {@code _} dropped, spaces to {@code -}, {@code -1}, {@code -2} for repeats). Links in code are not
 * links; absolute URLs are not followed.
 */
class DocsLinksTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6} (.*)$");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");

    @Test
    void everyRelativeLinkResolvesToAFileAndAnchor() throws IOException {
        List<Path> pages = pages();
        assertThat(pages).extracting(p -> ROOT.relativize(p).toString().replace('\\', '/'))
                .contains("README.md", "docs/configuration.md", "docs/algorithms.md");
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path page : pages) {
            for (String target : links(page)) {
                links++;
                if (target.matches("[a-zA-Z][a-zA-Z0-9+.-]*:.*") || target.startsWith("//")) {
                    continue;                                        // https:, mailto:: not checked here
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                String where = ROOT.relativize(page) + ": " + target;
                if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
                    broken.add(where + " (no such file)");
                } else if (anchor != null && resolved.toString().endsWith(".md")
                        && !anchors.computeIfAbsent(resolved, DocsLinksTest::anchors).contains(anchor)) {
                    broken.add(where + " (no such heading)");
                }
            }
        }
        assertThat(links).as("links found").isGreaterThan(50);
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void slugsAreGitHubs() {
        assertThat(slug("Algorithms: which one when")).isEqualTo("algorithms-which-one-when");
        assertThat(slug("Every @RateLimit attribute")).isEqualTo("every-ratelimit-attribute");
        assertThat(slug("`store=redis://…` and `rediss://`")).isEqualTo("storeredis-and-rediss");
        assertThat(slug("Redis Cluster (issue 21) — 3 masters")).isEqualTo("redis-cluster-issue-21--3-masters");
    }

    /** @return README.md, CHANGELOG.md, benchmarks/RESULTS.md and every Markdown file under docs */
    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CHANGELOG.md"),
                ROOT.resolve("benchmarks/RESULTS.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** @return the link targets of a page, outside fenced code and inline code */
    private static List<String> links(Path page) throws IOException {
        List<String> targets = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page)) {
            if (line.startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            Matcher m = LINK.matcher(INLINE_CODE.matcher(line).replaceAll("``"));
            while (m.find()) {
                targets.add(m.group(1));
            }
        }
        return targets;
    }

    /** @return the anchors GitHub gives the headings of a Markdown file */
    private static Set<String> anchors(Path file) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith("```")) {
                    fenced = !fenced;
                }
                Matcher h = HEADING.matcher(line);
                if (!fenced && h.matches()) {
                    String slug = slug(h.group(1));
                    int n = seen.merge(slug, 1, Integer::sum);
                    anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return anchors;
    }

    static String slug(String heading) {
        String text = heading.strip().replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");  // a link's text only
        return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\p{M}_\\- ]", "").replace(' ', '-');
    }
}
