package io.sluice.http;

import io.sluice.core.config.ConfigException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Reads a YAML document of a {@link RulesFile} as plain values, and its fields one by one: each error names the file
 * ({@code source}) and the field, and quotes the value.
 */
final class YamlFields {

    /** The characters of a list or mapping an error quotes: past {@link ConfigException}'s 200, so it shows "...". */
    private static final int TEXT_LIMIT = 201;

    private final String source;

    /** @param source names the file in error messages */
    YamlFields(String source) {
        this.source = source;
    }

    /**
     * @return the document as plain maps, lists and scalars: at most {@value RulesSource#MAX_BYTES} bytes, no
     *     duplicate keys, a few aliases
     */
    Object load(String yaml) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(20);
        options.setAllowRecursiveKeys(false);
        options.setNestingDepthLimit(20);
        options.setCodePointLimit(RulesSource.MAX_BYTES);
        try {
            DumperOptions dump = new DumperOptions();
            Object document = new Yaml(new SafeConstructor(options), new Representer(dump), dump, options,
                    new PlainScalars()).load(yaml);
            if (document == null) {
                throw error("the file", "is empty; expected a mapping with a \"rules\" list");
            }
            return document;
        } catch (ConfigException e) {
            throw e;
        } catch (YAMLException | IllegalArgumentException e) {
            // SnakeYAML's own errors, and those of its constructors on explicit tags (!!int abc, !!binary @@)
            String reason = String.valueOf(e.getMessage());
            throw new ConfigException(source + ": not valid YAML: "
                    + (reason.length() > 500 ? reason.substring(0, 500) + "..." : reason));
        }
    }

    /**
     * YAML 1.1's implicit types, but for null, {@code true}/{@code false} and decimal integers, are read as the text
     * written: a tier {@code 0123} is not the octal 83, an allowlisted key {@code 12:30} not the sexagesimal 750, a rule
     * named {@code 010} not 8, {@code yes}/{@code on} not booleans and {@code 1.50} not 1.5 (YAML 1.2's core schema).
     */
    private static final class PlainScalars extends Resolver {
        @Override
        protected void addImplicitResolvers() {
            addImplicitResolver(Tag.BOOL, Pattern.compile("^(?:true|True|TRUE|false|False|FALSE)$"),
                    "tTfF");
            addImplicitResolver(Tag.INT, Pattern.compile("^(?:0|[-+]?[1-9][0-9]*)$"), "-+0123456789");
            addImplicitResolver(Tag.MERGE, MERGE, "<");      // "<<: *defaults"
            addImplicitResolver(Tag.NULL, NULL, "~nN\0");
            addImplicitResolver(Tag.NULL, EMPTY, null);
        }
    }

    /** @return field {@code name} of {@code m}, a YAML boolean, or {@code fallback} when absent */
    boolean bool(Map<String, Object> m, String name, String at, boolean fallback) {
        Object v = m.get(name);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        throw new ConfigException(field(at, name), text(v), "expected true or false");
    }

    /** @return the constant that field {@code name} names ({@code on-store-failure: deny}), or {@code fallback} */
    <E extends Enum<E>> E choice(Map<String, Object> f, String name, String at, E fallback) {
        String v = string(f, name, at);
        if (v == null) {
            return fallback;
        }
        String wanted = v.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (E e : fallback.getDeclaringClass().getEnumConstants()) {
            if (e.name().equals(wanted)) {
                return e;
            }
        }
        TreeSet<String> accepted = new TreeSet<>();
        for (E e : fallback.getDeclaringClass().getEnumConstants()) {
            accepted.add(e.name().toLowerCase(Locale.ROOT));
        }
        throw new ConfigException(field(at, name), v, "expected one of " + String.join(", ", accepted));
    }

    /** @return {@code value}, a mapping with keys among {@code fields} only; {@code at} names it in errors */
    @SuppressWarnings("unchecked")
    Map<String, Object> mapping(Object value, String at, Set<String> fields) {
        if (!(value instanceof Map<?, ?> raw)) {
            throw new ConfigException(source + ": " + at, text(value), "expected a mapping of " + new TreeSet<>(fields));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        raw.forEach((k, v) -> m.put(String.valueOf(text(k)), v));
        for (String key : m.keySet()) {
            if (!fields.contains(key)) {
                throw new ConfigException(source + ": " + at, key, "unknown field; expected one of " + new TreeSet<>(fields));
            }
        }
        return m;
    }

    /** @return field {@code name} of {@code m} as a single value, or null when absent */
    String string(Map<String, Object> m, String name, String at) {
        Object v = m.get(name);
        return v == null ? null : scalar(v, field(at, name));
    }

    /** A list of scalars, or one scalar as a list of one. */
    List<String> strings(Map<String, Object> m, String name, String at) {
        Object v = m.get(name);
        if (v == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        if (v instanceof List<?> items) {
            for (Object item : items) {
                out.add(scalar(item, field(at, name)));
            }
        } else {
            out.add(scalar(v, field(at, name)));
        }
        return out;
    }

    /** @return {@code v}, a single value (not a list or mapping), as text; {@code parameter} names it in errors */
    String scalar(Object v, String parameter) {
        if (v instanceof String || v instanceof Number || v instanceof Boolean) {
            return String.valueOf(v);
        }
        throw new ConfigException(parameter, text(v), "expected a single value");
    }

    /** @return the name of field {@code name} of {@code at} in errors: {@code rules.yaml: rules[1] (api).limit} */
    String field(String at, String name) {
        return source + ": " + at + "." + name;
    }

    /** @return an error about {@code at} without a value to quote */
    ConfigException error(String at, String message) {
        return new ConfigException(source + ": " + at + ": " + message);
    }

    /**
     * @return {@code v} as {@code String.valueOf} writes it, but a list or mapping only up to the length that
     *     {@link ConfigException} quotes: aliases may repeat a collection inside itself a thousand times over (a 1 MiB
     *     file would print as gigabytes)
     */
    static String text(Object v) {
        if (v == null) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        append(b, v);
        return b.toString();
    }

    private static void append(StringBuilder b, Object v) {
        if (b.length() > TEXT_LIMIT) {
            return;
        }
        if (v instanceof Map<?, ?> m) {
            appendAll(b, '{', m.entrySet(), '}');
        } else if (v instanceof List<?> l) {
            appendAll(b, '[', l, ']');
        } else if (v instanceof Map.Entry<?, ?> e) {
            append(b, e.getKey());
            b.append('=');
            append(b, e.getValue());
        } else {
            b.append(v);
        }
    }

    /** As {@code AbstractCollection.toString} writes {@code items}, stopping once past {@link #TEXT_LIMIT}. */
    private static void appendAll(StringBuilder b, char open, Iterable<?> items, char close) {
        b.append(open);
        String separator = "";
        for (Object item : items) {
            if (b.length() > TEXT_LIMIT) {
                break;
            }
            b.append(separator);
            separator = ", ";
            append(b, item);
        }
        b.append(close);
    }
}
