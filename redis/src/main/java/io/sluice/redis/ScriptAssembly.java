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
 * line of the skeleton is replaced by that section of every fragment: {@code fast} and {@code library} one after the
 * other, {@code step inline} and {@code step library} as a chain {@code if code == ... elseif ... else} over the
 * inline algorithms and the others. Then every {@code ${...}} is replaced by its value, so the script tests plain
 * numbers, as fast as one written by hand.
 */
final class ScriptAssembly {

    private static final String MARKER = "--@ ";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(?:'(.)'|([A-Z][A-Z_]*))}");

    private ScriptAssembly() {}

    /** @return the script: {@code skeleton} with the fragments of {@code definitions} in place, constants replaced */
    static String assemble(String skeleton, List<Definition> definitions) {
        Map<Definition, Map<String, String>> sections = new LinkedHashMap<>();
        for (Definition d : definitions) {
            sections.put(d, sections(d.fragment(), d.lua()));
            if (d.fast() && !sections.get(d).containsKey("fast")) {
                throw new IllegalStateException(d.fragment() + " has no fast section, though " + d.algorithm()
                        + " has a fast mode");
            }
        }
        StringBuilder out = new StringBuilder(skeleton.length() * 3);
        for (String line : skeleton.split("\n", -1)) {
            if (!line.startsWith(MARKER)) {
                out.append(line).append('\n');
                continue;
            }
            switch (line.substring(MARKER.length()).trim()) {
                case "fast" -> append(out, sections, "fast");
                case "library" -> append(out, sections, "library");
                case "step inline" -> chain(out, sections, true);
                case "step library" -> chain(out, sections, false);
                default -> throw new IllegalStateException("sluice.lua: unknown section " + line);
            }
        }
        out.setLength(out.length() - 1);        // the split added a line end to the last line
        return substitute(out.toString(), definitions);
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
                if (!List.of("fast", "library", "step", "end").contains(section)) {
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
