package io.sluice.core.policy;

import io.sluice.core.config.ConfigException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The limit notation.
 *
 * <pre>
 * policy   := count "/" period option*          100/1m   10/s   5/10s burst 20   500/1h
 *           | count "concurrent" option*        20 concurrent   20 concurrent lease 30s
 *                                                 20 concurrent adaptive min 5 max 200 reserve 10
 * period   := [number] unit                      unit: ms s m h d, or sec, minutes, ... (docs/configuration.md)
 * option   := burst N | min-interval DURATION | count-rejected | warm-up DURATION | cold-factor N
 *           | max-wait DURATION | delay N | lease DURATION | staggered | penalty DURATION | leased DURATION
 *           | adaptive | min N | max N | reserve N
 * </pre>
 *
 * <p>The options are the algorithms' ({@link Settings#options()}), {@code penalty}, every algorithm's, and
 * {@code leased} (leased permits, {@link Policy#leasedMicros()}), the algorithms' that {@link Algorithm#leases()}. The
 * algorithm follows from the notation when not given: {@code concurrent} means concurrency ({@code adaptive},
 * {@code min}, {@code max} or {@code reserve} with it adaptive concurrency), and an option only one
 * algorithm takes means that algorithm ({@code warm-up} warm-up, {@code min-interval} or {@code count-rejected} the
 * sliding log, {@code max-wait} or {@code delay} the leaky bucket as a queue, {@code staggered} the fixed window);
 * anything else means {@link Policy#DEFAULT_ALGORITHM}. {@code burst} applies to the algorithms whose settings are a
 * {@link BucketSettings}; {@code delay} needs {@code max-wait} (without it nothing queues, and it would change
 * nothing).
 */
public final class PolicyParser {

    private static final String EXAMPLE = "such as \"100/1m\", \"10/s burst 20\", \"10/1m min-interval 2s\", "
            + "\"20 concurrent\" or \"100/1s warm-up 30s\"";
    private static final Pattern RATE = Pattern.compile("(\\d{1,10})\\s*/\\s*(\\d{0,10})\\s*([a-z]+)");
    private static final Pattern CONCURRENT = Pattern.compile("(\\d{1,10})\\s+concurrent");
    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})\\s*([a-z]+)");
    /** The option {@code penalty DURATION}, every algorithm's: the engine applies it. */
    private static final Settings.Option PENALTY = new Settings.Option("penalty", Settings.Kind.DURATION);
    /** The option {@code leased DURATION}: the policy checks that its algorithm leases. */
    private static final Settings.Option LEASED = new Settings.Option("leased", Settings.Kind.DURATION);
    /** The algorithms that take each option of their settings, in the order of {@link Algorithm}. */
    private static final Map<String, List<Algorithm>> TAKERS = new HashMap<>();
    /** Every option of the notation, each algorithm's then the penalty, in that order. */
    private static final Map<String, Settings.Option> OPTIONS = new LinkedHashMap<>();

    static {
        for (Algorithm a : Algorithm.values()) {
            for (Settings.Option o : a.defaults(1).options()) {
                OPTIONS.putIfAbsent(o.name(), o);
                TAKERS.computeIfAbsent(o.name(), name -> new ArrayList<>()).add(a);
            }
        }
        OPTIONS.put(PENALTY.name(), PENALTY);
        OPTIONS.put(LEASED.name(), LEASED);
    }
    /**
     * Every spelling of a unit the notation accepts (read in any case, but {@code M}), each unit's spellings together.
     * The unknown-unit error lists them all, and docs/configuration.md lists the same ({@code ReadmeReferenceTest}).
     */
    private static final Map<String, Duration> UNITS = new LinkedHashMap<>();

    static {
        spellings(Duration.ofMillis(1), "ms");
        spellings(Duration.ofSeconds(1), "s", "sec", "second", "seconds");
        spellings(Duration.ofMinutes(1), "m", "min", "minute", "minutes");
        spellings(Duration.ofHours(1), "h", "hour", "hours");
        spellings(Duration.ofDays(1), "d", "day", "days");
    }

    private static final String UNIT_LIST = unitList();
    /** A unit {@code M} on its own (after a number or a slash): minutes to this parser, months to many readers. */
    private static final Pattern MONTHS = Pattern.compile("[\\d/\\s]M(?![A-Za-z])");

    private PolicyParser() {}

    /**
     * Parses {@code text} for configuration parameter {@code parameter}.
     *
     * @param algorithm the algorithm to use, or null to infer it from the notation
     * @throws ConfigException quoting the input and showing a valid example
     */
    public static Policy parse(String parameter, String text, Algorithm algorithm) {
        if (text == null || text.isBlank()) {
            throw new ConfigException(parameter, text, "expected a limit " + EXAMPLE);
        }
        if (text.length() > 200) {
            throw new ConfigException(parameter, text.substring(0, 40) + "...",
                    "expected a limit of at most 200 characters " + EXAMPLE);
        }
        try {
            if (MONTHS.matcher(text).find()) {      // units are read in any case, and only this one could mislead
                throw new ConfigException(parameter, text, "unit \"M\" is ambiguous: write m for minutes, or 30d for"
                        + " a month");
            }
            return build(parameter, text, tokens(text), algorithm);
        } catch (ConfigException e) {
            String reason = e.getMessage();
            if (e.parameter() != null && reason.startsWith(e.parameter() + ": ")) {
                reason = reason.substring(e.parameter().length() + 2);     // drop the inner parameter name: we name ours
            }
            String got = ", got \"" + text + "\"";
            if (reason.endsWith(got)) {
                reason = reason.substring(0, reason.length() - got.length());
            }
            throw new ConfigException(parameter, text, reason + "; expected a limit " + EXAMPLE);
        }
    }

    private static Policy build(String parameter, String text, String[] tokens, Algorithm explicit) {
        boolean concurrent = tokens.length > 1 && tokens[1].equals("concurrent");
        Policy head = head(parameter, text, concurrent ? tokens[0] + " concurrent" : tokens[0]);
        Map<String, Long> options = new LinkedHashMap<>();
        Algorithm inferred = null;
        for (int i = concurrent ? 2 : 1; i < tokens.length; i++) {
            String option = tokens[i];
            Settings.Kind kind = kind(parameter, text, option);
            long value = kind == Settings.Kind.FLAG ? 1 : value(parameter, text, kind, tokens, ++i);
            if (options.put(option, value) != null) {
                throw new ConfigException(parameter, text, "\"" + option + "\" is given twice");
            }
            Algorithm owner = owner(option);
            if (owner != null) {
                inferred = infer(parameter, text, inferred, owner);
            }
        }
        Algorithm chosen = choose(parameter, text, concurrent, explicit, inferred);
        Settings settings = chosen.defaults(head.periodMicros());
        long penalty = 0;
        long leased = 0;
        for (Map.Entry<String, Long> option : options.entrySet()) {
            if (option.getKey().equals(PENALTY.name()) && !chosen.concurrent()) {
                penalty = option.getValue();
            } else if (option.getKey().equals(LEASED.name())) {
                leased = option.getValue();
            } else {
                settings = settings.with(taken(parameter, text, settings, option.getKey()), option.getValue());
            }
        }
        return new Policy(head.limit(), head.periodMicros(), settings, penalty, leased);
    }

    /** @return the policy that {@code head} ("100/1m", "20 concurrent") states, under the default algorithm */
    private static Policy head(String parameter, String text, String head) {
        Matcher concurrent = CONCURRENT.matcher(head);
        if (concurrent.matches()) {
            return Policy.concurrent(number(parameter, text, concurrent.group(1)));
        }
        Matcher rate = RATE.matcher(head);
        if (rate.matches()) {
            long count = number(parameter, text, rate.group(1));
            long amount = rate.group(2).isEmpty() ? 1 : number(parameter, text, rate.group(2));
            Duration period = unit(parameter, text, rate.group(3)).multipliedBy(amount);
            return Policy.of(Policy.DEFAULT_ALGORITHM, count, period);
        }
        throw new ConfigException(parameter, text, "expected \"<n>/<period>\" or \"<n> concurrent\"");
    }

    /** @return how the value of {@code option} is written: the kind any algorithm's settings give it */
    private static Settings.Kind kind(String parameter, String text, String option) {
        Settings.Option known = OPTIONS.get(option);
        if (known == null) {
            throw new ConfigException(parameter, text, "unknown option \"" + option + "\" (options: "
                    + String.join(", ", OPTIONS.keySet()) + ")");
        }
        return known.kind();
    }

    /** @return the value after {@code tokens[i - 1]}: a count, or a duration in microseconds */
    private static long value(String parameter, String text, Settings.Kind kind, String[] tokens, int i) {
        if (i >= tokens.length) {
            throw new ConfigException(parameter, text, "\"" + tokens[i - 1] + "\" needs a value");
        }
        if (kind == Settings.Kind.COUNT) {
            return number(parameter, text, tokens[i]);
        }
        return Policy.micros(tokens[i - 1], duration(parameter, text, tokens[i]));
    }

    /** @return the algorithms whose settings take {@code option} (none for the penalty, which every one takes) */
    private static List<Algorithm> takers(String option) {
        return TAKERS.getOrDefault(option, List.of());
    }

    /** @return the one algorithm that takes {@code option} (as {@code max-wait} means the leaky bucket), or null */
    private static Algorithm owner(String option) {
        List<Algorithm> takers = takers(option);
        return takers.size() == 1 ? takers.get(0) : null;
    }

    /** @return {@code option}, when {@code settings} take it */
    private static String taken(String parameter, String text, Settings settings, String option) {
        if (settings.options().stream().anyMatch(o -> o.name().equals(option))) {
            return option;
        }
        if (settings.algorithm() == Algorithm.CONCURRENCY) {
            throw new ConfigException(parameter, text, "\"concurrent\" takes only the lease option, such as"
                    + " \"20 concurrent lease 30s\" (and adaptive, min, max and reserve, such as"
                    + " \"20 concurrent adaptive max 200\")");
        }
        if (settings.algorithm() == Algorithm.ADAPTIVE_CONCURRENCY) {
            throw new ConfigException(parameter, text, "\"concurrent adaptive\" takes only the options min, max,"
                    + " reserve and lease, such as \"20 concurrent adaptive min 5 max 200 reserve 10 lease 30s\"");
        }
        if (takers(option).stream().allMatch(Algorithm::concurrent)) {
            throw new ConfigException(parameter, text, option + " applies to \"<n> concurrent\" limits, such as"
                    + (option.equals("lease") ? " \"20 concurrent lease 30s\""
                            : " \"20 concurrent adaptive min 5 max 200\""));
        }
        List<String> ids = takers(option).stream().map(Algorithm::id).toList();
        String takers = ids.size() == 1 ? ids.get(0)
                : String.join(", ", ids.subList(0, ids.size() - 1)) + " and " + ids.get(ids.size() - 1);
        throw new ConfigException(parameter, text, option + " applies to " + takers + ", not "
                + settings.algorithm().id());
    }

    /** Two options that need different algorithms cannot be combined. */
    private static Algorithm infer(String parameter, String text, Algorithm before, Algorithm needed) {
        if (before != null && before != needed) {
            throw new ConfigException(parameter, text, "options of the " + before.id() + " and the " + needed.id()
                    + " algorithms cannot be combined");
        }
        return needed;
    }

    /** @return the algorithm the notation and the configuration agree on */
    private static Algorithm choose(String parameter, String text, boolean concurrent, Algorithm explicit,
            Algorithm inferred) {
        if (concurrent) {
            if (explicit != null && !explicit.concurrent()) {
                throw new ConfigException(parameter, text, "\"concurrent\" limits in-flight requests and cannot use "
                        + explicit.id() + "; write a rate such as \"100/1m\"");
            }
            if (explicit == Algorithm.CONCURRENCY && inferred == Algorithm.ADAPTIVE_CONCURRENCY) {
                throw new ConfigException(parameter, text, "this notation needs the adaptive-concurrency algorithm,"
                        + " but concurrency was configured");
            }
            return explicit == Algorithm.ADAPTIVE_CONCURRENCY || inferred == Algorithm.ADAPTIVE_CONCURRENCY
                    ? Algorithm.ADAPTIVE_CONCURRENCY : Algorithm.CONCURRENCY;
        }
        if (explicit != null && explicit.concurrent()) {
            throw new ConfigException(parameter, text, "the " + explicit.id() + " algorithm takes \"<n> concurrent\"");
        }
        if (inferred != null && inferred.concurrent()) {
            throw new ConfigException(parameter, text, "adaptive, min, max and reserve apply to \"<n> concurrent\""
                    + " limits, such as \"20 concurrent adaptive min 5 max 200\"");
        }
        if (explicit != null && inferred != null && explicit != inferred) {
            throw new ConfigException(parameter, text, "this notation needs the " + inferred.id()
                    + " algorithm, but " + explicit.id() + " was configured");
        }
        return explicit != null ? explicit : inferred != null ? inferred : Policy.DEFAULT_ALGORITHM;
    }

    /** @return {@code policy} in the notation {@link #parse} reads */
    public static String format(Policy p) {
        String numbers = formatWithoutAlgorithm(p);
        return p.algorithm().concurrent() ? numbers : numbers + " (" + p.algorithm().id() + ')';
    }

    /**
     * @return {@code policy} in the notation {@link #parse} reads, without the algorithm's name in parentheses (where
     *     the numbers say it, as {@code max-wait} says leaky bucket)
     */
    public static String formatWithoutAlgorithm(Policy p) {
        StringBuilder s = new StringBuilder();
        if (p.algorithm().concurrent()) {
            s.append(p.limit()).append(" concurrent");
        } else {
            s.append(p.limit()).append('/').append(formatDuration(p.periodMicros()));
        }
        p.settings().format(s);
        if (p.penaltyMicros() > 0) {
            s.append(" penalty ").append(formatDuration(p.penaltyMicros()));
        }
        if (p.leasedMicros() > 0) {
            s.append(" leased ").append(formatDuration(p.leasedMicros()));
        }
        return s.toString();
    }

    /** Formats microseconds with the largest unit that divides them exactly: 60000000 → {@code 1m}. */
    public static String formatDuration(long micros) {
        long[] sizes = {86_400_000_000L, 3_600_000_000L, 60_000_000L, 1_000_000L, 1_000L};
        String[] names = {"d", "h", "m", "s", "ms"};
        for (int i = 0; i < sizes.length; i++) {
            if (micros % sizes[i] == 0) {
                return micros / sizes[i] + names[i];
            }
        }
        return micros + "us";
    }

    /**
     * Formats a wait as {@link #formatDuration} does, rounded up to whole milliseconds when it has microseconds (a
     * queue's wait in log lines and messages): 1500 → {@code 2ms}, 800000 → {@code 800ms}.
     */
    public static String formatWait(long micros) {
        return formatDuration(micros % 1_000 == 0 ? micros : micros - micros % 1_000 + 1_000);
    }

    /** Parses a duration such as {@code 2s}, {@code 1500ms}, {@code 1h} (parameter {@code reload-interval}). */
    public static Duration parseDuration(String parameter, String text) {
        if (text != null && MONTHS.matcher(text).find()) {
            throw new ConfigException(parameter, text, "unit \"M\" is ambiguous: write m for minutes");
        }
        return duration(parameter, text, text == null ? "" : text.trim().toLowerCase(Locale.ROOT));
    }

    private static String[] tokens(String text) {
        String normalized = text.trim().toLowerCase(Locale.ROOT)
                .replaceAll("\\s*/\\s*(\\d*)\\s*([a-z]+)", "/$1$2");
        return normalized.split("\\s+");
    }

    private static long number(String parameter, String text, String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new ConfigException(parameter, text, "\"" + digits + "\" is not a whole number");
        }
    }

    private static Duration duration(String parameter, String text, String token) {
        Matcher m = DURATION.matcher(token);
        if (!m.matches()) {
            throw new ConfigException(parameter, text, "\"" + token + "\" is not a duration such as \"2s\" or \"500ms\"");
        }
        long amount = number(parameter, text, m.group(1));
        Duration unit = unit(parameter, text, m.group(2));
        try {
            return unit.multipliedBy(amount);
        } catch (ArithmeticException e) {
            throw new ConfigException(parameter, text, "\"" + token + "\" is too long");
        }
    }

    private static Duration unit(String parameter, String text, String unit) {
        Duration d = UNITS.get(unit);
        if (d == null) {
            throw new ConfigException(parameter, text, "unknown unit \"" + unit + "\" (units: " + UNIT_LIST + ")");
        }
        return d;
    }

    private static void spellings(Duration unit, String... names) {
        for (String name : names) {
            UNITS.put(name, unit);
        }
    }

    /** @return the spellings of {@link #UNITS}, each unit's together: {@code ms; s, sec, second, seconds; ...} */
    private static String unitList() {
        StringBuilder b = new StringBuilder();
        Duration last = null;
        for (Map.Entry<String, Duration> u : UNITS.entrySet()) {
            b.append(last == null ? "" : u.getValue().equals(last) ? ", " : "; ").append(u.getKey());
            last = u.getValue();
        }
        return b.toString();
    }
}
