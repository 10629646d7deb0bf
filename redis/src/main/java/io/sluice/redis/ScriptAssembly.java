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
 * once per algorithm with a fast mode ({@link Definition#fast()}): its {@code ${CODE}} that algorithm's code (as a
 * string), its line {@code --@ fast step} that algorithm's {@code step}, the same text as in the loop, so that each
 * algorithm's decision is written once. Then every {@code ${...}} is replaced by its value ({@code ${FAST}}: the test
 * that {@code fast} is a fast mode's code), so the script tests plain values, as fast as one written by hand. What
 * The lines from {@code --@ batch} to {@code --@ batch end} are such a template too, for the fast batch (mode
 * {@code B}), whose step reads its policy's numbers as {@code P[k]} in both texts. What
 * differs between the script and the body of the Redis function ({@link RedisScript}) is in the skeleton's blocks
 * {@code --@ script} and {@code --@ function}, up to {@code --@ shared}: each text keeps its own.
 */
final class ScriptAssembly {

    private static final String MARKER = "--@ ";
    private static final String FAST = MARKER + "fast";
    private static final String FAST_STEP = MARKER + "fast step";
    private static final String FAST_END = MARKER + "fast end";
    private static final String BATCH_END = MARKER + "batch end";
    /** The template's line that sets {@code a} to 1 and the cost: {@link #folded} reads {@code A[a + k]} so. */
    private static final String FAST_ARGUMENTS = "  local a, cost = 1, 1";
    private static final Pattern ARGUMENT = Pattern.compile("\\bA\\[a \\+ \\d{1,3}]");
    /** An argument of a step read as a number: a fast step's are its policy's numbers, parsed before it ({@code P}). */
    private static final Pattern NUMBER_ARGUMENT = Pattern.compile("\\btonumber\\(A\\[a \\+ (\\d{1,3})]\\)");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(?:'(.)'|([A-Z][A-Z_]*))}");

    private ScriptAssembly() {}

    /** @return the script: {@code skeleton} with the fragments of {@code definitions} in place, constants replaced */
    static String assemble(String skeleton, List<Definition> definitions) {
        return assemble(skeleton, definitions, false);
    }

    /**
     * @param function whether the text is the body of the Redis function (its {@code --@ function} blocks), or the
     *     script (its {@code --@ script} blocks)
     * @return {@code skeleton} with the fragments of {@code definitions} in place, constants replaced
     */
    static String assemble(String skeleton, List<Definition> definitions, boolean function) {
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
        String block = "shared";
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (!line.startsWith(MARKER)) {
                if (block.equals("shared") || block.equals(function ? "function" : "script")) {
                    out.append(line).append('\n');
                }
                continue;
            }
            String section = line.substring(MARKER.length()).trim();
            if (List.of("script", "function", "shared").contains(section)) {
                block = section;
                continue;
            }
            if (!block.equals("shared")) {
                throw new IllegalStateException("sluice.lua: section " + line + " inside the " + block + " block");
            }
            switch (section) {
                case "fast", "batch" -> {
                    String last = section.equals("fast") ? FAST_END : BATCH_END;
                    int end = i + 1;
                    while (end < lines.length && !lines[end].trim().equals(last)) {
                        end++;
                    }
                    if (end == lines.length) {
                        throw new IllegalStateException("sluice.lua: " + line.trim() + " without " + last);
                    }
                    // the batch mode reads its policies' numbers as P[k] in the script too: it parses them per call
                    fast(out, sections, List.of(lines).subList(i + 1, end), function || section.equals("batch"));
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
     * {@code ${CODE}} that algorithm's code, its line {@code --@ fast step} that algorithm's step.
     */
    private static void fast(StringBuilder out, Map<Definition, Map<String, String>> sections, List<String> template,
            boolean function) {
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
                    out.append(folded(s.get("step"), function));
                } else {
                    out.append(template.get(i).replace("${CODE}", "${" + d.algorithm().name() + "_MODE}"))
                            .append('\n');
                }
            }
        });
    }

    /**
     * A step for the fast mode, whose only arguments are its policy's numbers (it has no check arguments), read as
     * {@code tonumber(A[a + k])}: in the script, from constant indexes, {@code tonumber(A[k + 1])} ({@code a} is 1:
     * an addition less per argument; the fast mode exists to spend fewer instructions); in the Redis function, as
     * {@code P[k + 1]}, the numbers it parsed from the mode's one argument, once for every call with the same argument
     * ({@link RedisScript#library()}). Nothing else changes, {@code a} included.
     *
     * @param function whether the step is the Redis function's, else the script's
     * @throws IllegalStateException where the step reads an argument otherwise than as a number
     */
    static String folded(String step, boolean function) {
        Matcher m = NUMBER_ARGUMENT.matcher(step);
        StringBuilder out = new StringBuilder(step.length());
        while (m.find()) {
            int k = Integer.parseInt(m.group(1)) + 1;
            m.appendReplacement(out, function ? "P[" + k + "]" : "tonumber(A[" + k + "])");
        }
        m.appendTail(out);
        if (ARGUMENT.matcher(out).find()) {
            throw new IllegalStateException("a fast step reads its arguments as tonumber(A[a + k]) alone, its policy's"
                    + " numbers: " + step);
        }
        return out.toString();
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

    /**
     * {@code ${NAME}}: an algorithm's code; {@code ${NAME_MODE}}: that code as a string; {@code ${FAST}}: whether
     * {@code fast} is the code of an algorithm with a fast mode ({@code fast == 'g'}); {@code ${'c'}}: c's code.
     */
    private static Map<String, String> constants(List<Definition> definitions) {
        Map<String, String> constants = new HashMap<>();
        StringBuilder fast = new StringBuilder();
        for (Definition d : definitions) {
            constants.put(d.algorithm().name(), Integer.toString(d.code()));
            constants.put(d.algorithm().name() + "_MODE", "'" + d.code() + "'");
            if (d.fast()) {
                fast.append(fast.isEmpty() ? "" : " or ").append("fast == '").append(d.code()).append('\'');
            }
        }
        constants.put("FAST", fast.isEmpty() ? "false" : fast.toString());
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
