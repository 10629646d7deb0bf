package io.sluice.redis;

import io.sluice.core.algorithm.Definition;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one script Redis runs, assembled from the skeleton {@code sluice.lua} and the Lua fragment of every registered
 * algorithm, in registration order (see {@link Definition} for the sections of a fragment). Each {@code --@ <section>}
 * line of the skeleton is replaced by that section of every fragment: {@code library} one after the other,
 * {@code step inline} and {@code step library} as a chain {@code if code == ... elseif ... else} over the inline
 * algorithms and the others. The skeleton's lines from {@code --@ fast} to {@code --@ fast end} are a template, given
 * once per algorithm with a fast mode ({@link Definition#fast()}): its {@code ${MODE}} that algorithm's mode, its
 * line {@code --@ fast step} that algorithm's {@code step}, the same text as in the loop, so that each algorithm's
 * decision is written once. Then every {@code ${...}} is replaced by its value, so the script tests plain numbers, as
 * fast as one written by hand.
 */
final class ScriptAssembly {

    private static final String MARKER = "--@ ";
    private static final String FAST = MARKER + "fast";
    private static final String FAST_STEP = MARKER + "fast step";
    private static final String FAST_END = MARKER + "fast end";
    /** The template's line that sets {@code a} to 1 and the cost: {@link #folded} reads {@code A[a + k]} so. */
    private static final String FAST_ARGUMENTS = "  local a, cost = 1, 1";
    private static final Pattern ARGUMENT = Pattern.compile("\\bA\\[a \\+ (\\d{1,3})]");
    /** An argument of a fast step parsed: its policy's numbers, which a Redis function parses once ({@code number}). */
    private static final Pattern PARSED_ARGUMENT = Pattern.compile("\\btonumber\\(A\\[(\\d{1,3})]\\)");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(?:'(.)'|([A-Z][A-Z_]*))}");

    private ScriptAssembly() {}

    /** @return the script: {@code skeleton} with the fragments of {@code definitions} in place, constants replaced */
    static String assemble(String skeleton, List<Definition> definitions) {
        Map<Definition, Map<String, String>> sections = new LinkedHashMap<>();
        for (Definition d : definitions) {
            sections.put(d, sections(d.fragment(), d.lua()));
            if (d.fast() && !(d.inline() && d.checkArgumentCount() == 0 && sections.get(d).containsKey("step"))) {
                throw new IllegalStateException(d.algorithm() + " has a fast mode, which runs its step on its policy's"
                        + " numbers alone: it needs an inline step in " + d.fragment() + " and no check arguments");
            }
        }
        StringBuilder out = new StringBuilder(skeleton.length() * 3);
        String[] lines = skeleton.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (!line.startsWith(MARKER)) {
                out.append(line).append('\n');
                continue;
            }
            switch (line.substring(MARKER.length()).trim()) {
                case "fast" -> {
                    int end = i + 1;
                    while (end < lines.length && !lines[end].trim().equals(FAST_END)) {
                        end++;
                    }
                    if (end == lines.length) {
                        throw new IllegalStateException("sluice.lua: " + FAST + " without " + FAST_END);
                    }
                    fast(out, sections, List.of(lines).subList(i + 1, end));
                    i = end;
                }
                case "library" -> append(out, sections, "library");
                case "step inline" -> chain(out, sections, true);
                case "step library" -> chain(out, sections, false);
                default -> throw new IllegalStateException("sluice.lua: unknown section " + line);
            }
        }
        out.setLength(out.length() - 1);        // the split added a line end to the last line
        return substitute(out.toString(), definitions);
    }

    /**
     * The template between {@code --@ fast} and {@code --@ fast end}, once per algorithm with a fast mode: its
     * {@code ${MODE}} that algorithm's mode, its line {@code --@ fast step} that algorithm's step.
     */
    private static void fast(StringBuilder out, Map<Definition, Map<String, String>> sections, List<String> template) {
        int step = template.indexOf(FAST_STEP);
        if (step < 0 || template.lastIndexOf(FAST_STEP) != step) {
            throw new IllegalStateException("sluice.lua: the fast template needs one line " + FAST_STEP);
        }
        if (!template.subList(0, step).contains(FAST_ARGUMENTS)) {
            throw new IllegalStateException("sluice.lua: the fast template must set a = 1 (" + FAST_ARGUMENTS
                    + "), which folded() assumes");
        }
        sections.forEach((d, s) -> {
            if (!d.fast()) {
                return;
            }
            out.append("-- ").append(d.fragment()).append(": its fast mode, around its step\n");
            for (int i = 0; i < template.size(); i++) {
                if (i == step) {
                    out.append(folded(s.get("step")));
                } else {
                    out.append(template.get(i).replace("${MODE}", "${" + d.algorithm().name() + "_MODE}"))
                            .append('\n');
                }
            }
        });
    }

    /**
     * A step for the fast mode, where {@code a} is 1: its arguments {@code A[a + k]} read as {@code A[k + 1]},
     * constant indexes (an addition less per argument; the fast mode exists to spend fewer instructions), and parsed
     * by {@code number} instead of {@code tonumber}: the same function in a script, one that remembers what it parsed
     * in a Redis function ({@link RedisScript#library()}), as a fast mode's arguments are only its policy's numbers
     * (it has no check arguments), the same strings call after call. Nothing else changes, {@code a} included.
     */
    static String folded(String step) {
        Matcher m = ARGUMENT.matcher(step);
        StringBuilder out = new StringBuilder(step.length());
        while (m.find()) {
            m.appendReplacement(out, "A[" + (Integer.parseInt(m.group(1)) + 1) + "]");
        }
        m.appendTail(out);
        return PARSED_ARGUMENT.matcher(out).replaceAll("number(A[$1])");
    }

    /** Each fragment's {@code section}, one after the other, each under a comment naming its fragment. */
    private static void append(StringBuilder out, Map<Definition, Map<String, String>> sections, String section) {
        sections.forEach((d, s) -> {
            if (s.containsKey(section)) {
                out.append("-- ").append(d.fragment()).append('\n').append(s.get(section));
            }
        });
    }

    /** The steps of the inline algorithms, or of the others, as {@code if code == ... elseif ... else}. */
    private static void chain(StringBuilder out, Map<Definition, Map<String, String>> sections, boolean inline) {
        String indent = inline ? "  " : "    ";
        String keyword = "if";
        for (Map.Entry<Definition, Map<String, String>> e : sections.entrySet()) {
            Definition d = e.getKey();
            if (d.inline() == inline && e.getValue().containsKey("step")) {
                out.append(indent).append(keyword).append(" code == ${").append(d.algorithm().name()).append("} then")
                        .append("    -- ").append(d.fragment()).append('\n').append(e.getValue().get("step"));
                keyword = "elseif";
            }
        }
        if (keyword.equals("if")) {
            out.append(indent).append("if false then\n");     // no such algorithm: the skeleton's else alone
        }
        out.append(indent).append("else\n");
    }

    /** The sections of a fragment: the text after each {@code --@ <name>} line, up to the next (the header dropped). */
    static Map<String, String> sections(String name, String lua) {
        Map<String, String> sections = new HashMap<>();
        String section = null;
        StringBuilder body = new StringBuilder();
        for (String line : (lua + "\n" + MARKER + "end").split("\n")) {
            if (line.startsWith(MARKER)) {
                if (section != null && sections.put(section, body.toString().stripTrailing() + "\n") != null) {
                    throw new IllegalStateException(name + ": section " + section + " is given twice");
                }
                section = line.substring(MARKER.length()).trim();
                if (!List.of("library", "step", "end").contains(section)) {
                    throw new IllegalStateException(name + ": unknown section " + section);
                }
                body.setLength(0);
            } else if (section != null) {
                body.append(line).append('\n');
            }
        }
        return sections;
    }

    /** {@code ${NAME}}: an algorithm's code; {@code ${NAME_MODE}}: that code as a string; {@code ${'c'}}: c's code. */
    private static Map<String, String> constants(List<Definition> definitions) {
        Map<String, String> constants = new HashMap<>();
        for (Definition d : definitions) {
            constants.put(d.algorithm().name(), Integer.toString(d.code()));
            constants.put(d.algorithm().name() + "_MODE", "'" + d.code() + "'");
        }
        return constants;
    }

    /** @return {@code lua} with every {@code ${...}} replaced by its value */
    static String substitute(String lua, List<Definition> definitions) {
        Map<String, String> constants = constants(definitions);
        Matcher m = PLACEHOLDER.matcher(lua);
        StringBuilder out = new StringBuilder(lua.length());
        while (m.find()) {
            String value = m.group(1) != null ? Integer.toString(m.group(1).charAt(0)) : constants.get(m.group(2));
            if (value == null) {
                throw new IllegalStateException("sluice.lua: unknown constant " + m.group());
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }
}
