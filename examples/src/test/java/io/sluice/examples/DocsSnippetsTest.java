package io.sluice.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.sluice.core.key.ClientIpResolver;
import io.sluice.http.Parameters;
import io.sluice.http.RuleSet;
import io.sluice.http.RulesFile;
import io.sluice.http.SluiceConfig;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * Every fenced block of README.md and docs/**&#47;*.md is checked, by its label:
 * <ul>
 *   <li>{@code java}: its lines appear, in order and consecutively, in a Java source of this module (src/main/java or
 *   src/test/java, both compiled by the build; the docs' code lives in {@code io.sluice.examples.docs}). Lines are
 *   compared stripped, runs of white space as one, blank lines ignored; a doc line {@code A { ... } B} stands for a
 *   source line {@code A { B} followed by any body up to its closing brace.</li>
 *   <li>{@code yaml}: parsed by {@link RulesFile#parse} as a rules file; a block whose first line is indented or a
 *   {@code - } list item is a fragment of the {@code rules:} list and is parsed under {@code rules:}.</li>
 *   <li>{@code xml}: well-formed (a fragment inside a root element). Every {@code filter-class} and
 *   {@code servlet-class} is on the class path; the init parameters of {@code RateLimitFilter} are
 *   {@link SluiceConfig#NAMES} and load as a configuration, those of {@code AdminServlet} are {@code filter} and
 *   {@code role}. A dependency on {@code io.sluice} names a module of this build, and its version, if any, is the
 *   build's.</li>
 *   <li>{@code properties}: loaded; every {@code sluice.} key is one of {@link SluiceConfig#NAMES}, and together they
 *   load as a configuration.</li>
 *   <li>{@code json}: parsed; an element {@code , ...} (the docs' "and so on") is dropped first.</li>
 *   <li>{@code http}: a response: an optional status line, {@code Name: value} headers, a blank line, a body; a JSON
 *   body (by its {@code Content-Type}) is parsed.</li>
 *   <li>{@code bash}: not run; every module named by {@code -pl} is a module of this build.</li>
 * </ul>
 * Any other block, unlabelled or labelled otherwise (such as {@code text}), fails unless the line before its fence is
 * {@code <!-- unchecked: REASON -->}: what cannot be checked says so, and why. Such marks are for output and notation
 * shown to the reader, and for code this build cannot compile.
 */
class DocsSnippetsTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path EXAMPLES = ROOT.resolve("examples");
    private static final Pattern OPEN = Pattern.compile("^(\\s*)```(\\S*)\\s*$");
    private static final Pattern CLOSE = Pattern.compile("^\\s*```\\s*$");
    private static final Pattern MARK = Pattern.compile("^\\s*<!-- unchecked: (\\S.*\\S) -->\\s*$");
    private static final Pattern ELIDED_BODY = Pattern.compile("^(.*\\{) \\.\\.\\. }(?: (.*))?$");
    private static final Set<String> CHECKED = Set.of("java", "yaml", "xml", "properties", "json", "http", "bash");

    /** A fenced block: where it is, its label ("" for none), its lines less the fence's indentation. */
    record Block(String page, int line, String label, List<String> lines, String uncheckedBecause) {
        String text() {
            return String.join("\n", lines) + "\n";
        }

        @Override
        public String toString() {
            return page + ":" + line + " ```" + label;
        }
    }

    @Test
    void theDocsHaveBlocksOfEveryKind() throws IOException {
        Map<String, Long> kinds = blocks().stream()
                .collect(Collectors.groupingBy(Block::label, TreeMap::new, Collectors.counting()));
        assertThat(kinds).containsKeys("java", "yaml", "xml", "properties", "json", "http", "bash");
        assertThat(kinds.get("java")).isGreaterThanOrEqualTo(9);
    }

    @TestFactory
    Stream<DynamicTest> everyBlockIsChecked() throws IOException {
        List<String> sources = javaSources();
        return blocks().stream().map(b -> DynamicTest.dynamicTest(b.toString(), () -> check(b, sources)));
    }

    private static void check(Block b, List<String> sources) throws Exception {
        if (b.uncheckedBecause() != null) {
            return;
        }
        switch (b.label()) {
            case "java" -> java(b, sources);
            case "yaml" -> yaml(b);
            case "xml" -> xml(b);
            case "properties" -> properties(b);
            case "json" -> json(b.text().replaceAll(",\\s*\\.\\.\\.", ""), b);
            case "http" -> http(b);
            case "bash" -> bash(b);
            default -> fail("%s: label it one of %s, or mark it <!-- unchecked: REASON --> on the line before", b,
                    new TreeSet<>(CHECKED));
        }
    }

    // --- java

    private static void java(Block b, List<String> sources) {
        List<String> wanted = normalized(b.lines());
        assertThat(wanted).as("%s: empty", b).isNotEmpty();
        for (String source : sources) {
            List<String> lines = normalized(source.lines().toList());
            for (int i = 0; i < lines.size(); i++) {
                if (matchesAt(wanted, lines, i)) {
                    return;
                }
            }
        }
        fail("%s: no compiled source of examples/src/*/java has these lines (stripped, blank lines ignored)%n%s", b,
                String.join("\n", wanted));
    }

    private static boolean matchesAt(List<String> wanted, List<String> lines, int at) {
        int i = at;
        for (String w : wanted) {
            if (i >= lines.size()) {
                return false;
            }
            Matcher elided = ELIDED_BODY.matcher(w);
            if (elided.matches()) {
                String head = elided.group(1) + (elided.group(2) == null ? "" : " " + elided.group(2));
                if (!lines.get(i).equals(head)) {
                    return false;
                }
                int depth = braces(lines.get(i));
                while (depth > 0 && ++i < lines.size()) {
                    depth += braces(lines.get(i));
                }
                if (depth != 0) {
                    return false;
                }
            } else if (!lines.get(i).equals(w)) {
                return false;
            }
            i++;
        }
        return true;
    }

    private static int braces(String line) {
        String code = line.replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"").replaceAll("//.*", "");
        return (int) (code.chars().filter(c -> c == '{').count() - code.chars().filter(c -> c == '}').count());
    }

    private static List<String> normalized(List<String> lines) {
        return lines.stream().map(l -> l.strip().replaceAll("\\s+", " ")).filter(l -> !l.isEmpty()).toList();
    }

    private static List<String> javaSources() throws IOException {
        List<String> sources = new ArrayList<>();
        for (String dir : List.of("src/main/java", "src/test/java")) {
            try (Stream<Path> files = Files.walk(EXAMPLES.resolve(dir))) {
                for (Path p : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                    sources.add(Files.readString(p));
                }
            }
        }
        return sources;
    }

    // --- yaml, properties

    private static void yaml(Block b) {
        String first = b.lines().stream().filter(l -> !l.isBlank()).findFirst().orElse("");
        boolean fragment = first.startsWith(" ") || first.startsWith("- ");
        RuleSet rules = RulesFile.parse(b.toString(), fragment ? "rules:\n" + b.text() : b.text(),
                ClientIpResolver.direct());
        assertThat(rules.rules()).as("%s: its rules", b).isNotEmpty();
    }

    private static void properties(Block b) throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(b.text()));
        Map<String, String> params = new LinkedHashMap<>();
        for (String name : p.stringPropertyNames()) {
            if (name.startsWith("sluice.")) {
                params.put(name.substring("sluice.".length()), p.getProperty(name));
            }
        }
        assertThat(params).as("%s: its sluice. keys", b).isNotEmpty();
        assertThat(SluiceConfig.NAMES).as("%s: the parameters it names", b).containsAll(params.keySet());
        load(params, "properties");
    }

    private static void load(Map<String, String> params, String label) {
        SluiceConfig.load(Parameters.of("sluice", name -> null, name -> null, params, label), SluiceConfig.files());
    }

    // --- xml

    private static void xml(Block b) throws Exception {
        String text = b.text().startsWith("<?xml") ? b.text() : "<snippet>\n" + b.text() + "</snippet>\n";
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new InputSource(new StringReader(text)));
        for (String kind : List.of("filter", "servlet")) {
            for (Element e : elements(doc.getDocumentElement(), kind)) {
                String className = child(e, kind + "-class");
                assertThat(className).as("%s: a <%s> names its class", b, kind).isNotNull();
                Class.forName(className);
                Map<String, String> params = new LinkedHashMap<>();
                for (Element p : elements(e, "init-param")) {
                    params.put(child(p, "param-name"), child(p, "param-value"));
                }
                if (className.equals("io.sluice.filter.RateLimitFilter")) {
                    assertThat(SluiceConfig.NAMES).as("%s: its init-params", b).containsAll(params.keySet());
                    load(params, "init-param");
                } else if (className.equals("io.sluice.filter.AdminServlet")) {
                    assertThat(Set.of("filter", "role")).as("%s: its init-params", b).containsAll(params.keySet());
                }
            }
        }
        Set<String> modules = moduleArtifacts();
        String version = child(parse(ROOT.resolve("pom.xml")).getDocumentElement(), "version");
        for (Element d : elements(doc.getDocumentElement(), "dependency")) {
            if ("io.sluice".equals(child(d, "groupId"))) {
                assertThat(modules).as("%s: the modules of this build", b).contains(child(d, "artifactId"));
                String v = child(d, "version");
                assertThat(v == null || v.equals(version)).as("%s: version %s is the build's %s", b, v, version)
                        .isTrue();
            }
        }
    }

    /** @return the artifactIds of the modules the root pom lists */
    private static Set<String> moduleArtifacts() throws Exception {
        Set<String> ids = new TreeSet<>();
        for (Element m : elements(parse(ROOT.resolve("pom.xml")).getDocumentElement(), "module")) {
            ids.add(child(parse(ROOT.resolve(m.getTextContent().strip()).resolve("pom.xml")).getDocumentElement(),
                    "artifactId"));
        }
        return ids;
    }

    private static Document parse(Path xml) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile());
    }

    private static List<Element> elements(Element in, String name) {
        NodeList nodes = in.getElementsByTagName(name);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            out.add((Element) nodes.item(i));
        }
        return out;
    }

    /** @return the text of {@code in}'s first direct child element {@code name}, or null */
    private static String child(Element in, String name) {
        for (org.w3c.dom.Node n = in.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e.getTextContent().strip();
            }
        }
        return null;
    }

    // --- http, json, bash

    private static void http(Block b) {
        List<String> lines = b.lines();
        int i = 0;
        if (lines.get(0).startsWith("HTTP/")) {
            assertThat(lines.get(0)).as("%s: its status line", b).matches("HTTP/1\\.1 \\d{3} [A-Za-z ]+");
            i++;
        }
        String contentType = "";
        for (; i < lines.size() && !lines.get(i).isEmpty(); i++) {
            assertThat(lines.get(i)).as("%s: a header line", b).matches("[A-Za-z0-9-]+: \\S.*");
            if (lines.get(i).toLowerCase().startsWith("content-type:")) {
                contentType = lines.get(i);
            }
        }
        String body = String.join("\n", lines.subList(Math.min(i + 1, lines.size()), lines.size()));
        if (contentType.contains("json")) {
            json(body, b);
        }
    }

    private static void json(String text, Block b) {
        Json json = new Json(text);
        try {
            json.value();
        } catch (AssertionError e) {
            throw new AssertionError(b + ": " + e.getMessage(), e);
        }
        json.space();
        assertThat(json.at).as("%s: JSON ends at %d of %d: %s", b, json.at, text.length(), text).isEqualTo(
                text.length());
    }

    /** A JSON syntax check (RFC 8259), nothing built. */
    private static final class Json {
        private final String s;
        private int at;

        Json(String s) {
            this.s = s;
        }

        void value() {
            space();
            char c = peek();
            if (c == '{') {
                members('}', true);
            } else if (c == '[') {
                members(']', false);
            } else if (c == '"') {
                string();
            } else {
                Matcher m = Pattern.compile("-?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?|true|false|null")
                        .matcher(s).region(at, s.length());
                assertThat(m.lookingAt()).as("JSON value at %d: %s", at, s.substring(at)).isTrue();
                at = m.end();
            }
        }

        private void members(char close, boolean object) {
            at++;
            space();
            if (peek() == close) {
                at++;
                return;
            }
            while (true) {
                if (object) {
                    space();
                    string();
                    space();
                    expect(':');
                }
                value();
                space();
                if (peek() == close) {
                    at++;
                    return;
                }
                expect(',');
            }
        }

        private void string() {
            expect('"');
            while (peek() != '"') {
                at += s.charAt(at) == '\\' ? 2 : 1;
            }
            at++;
        }

        private char peek() {
            assertThat(at).as("JSON ends early: %s", s).isLessThan(s.length());
            return s.charAt(at);
        }

        private void expect(char c) {
            assertThat(at < s.length() && s.charAt(at) == c).as("JSON: '%s' expected at %d: %s", c, at, s).isTrue();
            at++;
        }

        void space() {
            while (at < s.length() && Character.isWhitespace(s.charAt(at))) {
                at++;
            }
        }
    }

    private static void bash(Block b) {
        Matcher m = Pattern.compile("-pl (\\S+)").matcher(b.text());
        while (m.find()) {
            for (String module : m.group(1).split(",")) {
                assertThat(ROOT.resolve(module).resolve("pom.xml")).as("%s: module %s", b, module).isRegularFile();
            }
        }
    }

    // --- the blocks

    private static List<Block> blocks() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<Block> blocks = new ArrayList<>();
        for (Path page : pages) {
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher open = OPEN.matcher(lines.get(i));
                if (!open.matches()) {
                    continue;
                }
                String indent = open.group(1);
                int start = i;
                List<String> body = new ArrayList<>();
                for (i++; i < lines.size() && !CLOSE.matcher(lines.get(i)).matches(); i++) {
                    String l = lines.get(i);
                    body.add(l.startsWith(indent) ? l.substring(indent.length()) : l.strip());
                }
                String name = ROOT.relativize(page).toString().replace('\\', '/');
                assertThat(i).as("%s:%d: the block is closed", name, start + 1).isLessThan(lines.size());
                Matcher mark = start > 0 ? MARK.matcher(lines.get(start - 1)) : null;
                blocks.add(new Block(name, start + 1, open.group(2), body,
                        mark != null && mark.matches() ? mark.group(1) : null));
            }
        }
        return blocks;
    }
}
