package io.sluice.core.policy;

import io.sluice.core.config.ConfigException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The limit notation.
 *
 * <pre>
 * policy   := count "/" period option*          100/1m   10/s   5/10s burst 20   500/1h
 *           | count "concurrent" option*        20 concurrent   20 concurrent lease 30s
 * period   := [number] unit                      unit: ms s m h d
 * option   := burst N | min-interval DURATION | count-rejected | warm-up DURATION | cold-factor N
 *           | max-wait DURATION | delay N | lease DURATION | staggered | penalty DURATION
 * </pre>
 *
 * <p>The algorithm follows from the notation when not given: {@code concurrent} means concurrency,
 * {@code warm-up} means warm-up, {@code min-interval} or {@code count-rejected} mean the sliding log,
 * {@code max-wait} or {@code delay} mean the leaky bucket (as a queue), {@code staggered} means the fixed window,
 * anything else {@link Policy#DEFAULT_ALGORITHM}. {@code burst} applies to the token bucket, the leaky bucket and
 * GCRA only; {@code delay} needs {@code max-wait} (without it nothing queues, and it would change nothing).
 */
public final class PolicyParser {

    private static final String EXAMPLE = "such as \"100/1m\", \"10/s burst 20\", \"10/1m min-interval 2s\", "
            + "\"20 concurrent\" or \"100/1s warm-up 30s\"";
    private static final Pattern RATE = Pattern.compile("(\\d{1,10})\\s*/\\s*(\\d{0,10})\\s*([a-z]+)");
    private static final Pattern CONCURRENT = Pattern.compile("(\\d{1,10})\\s+concurrent");
    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})\\s*([a-z]+)");
    /** The longest max-wait a policy takes, 366 days (Policy's bound), in microseconds. */
    private static final long LONGEST_WAIT_MICROS = Duration.ofDays(366).toNanos() / 1_000;
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
        boolean concurrentHead = tokens.length > 1 && tokens[1].equals("concurrent");
        Policy policy = head(parameter, text, concurrentHead ? tokens[0] + " concurrent" : tokens[0], explicit);
        Algorithm inferred = null;
        Set<String> given = new HashSet<>();
        for (int i = concurrentHead ? 2 : 1; i < tokens.length; i++) {
            String option = tokens[i];
            if (!given.add(option)) {
                throw new ConfigException(parameter, text, "\"" + option + "\" is given twice");
            }
            String value = VALUED.contains(option) ? value(parameter, text, tokens, ++i) : null;
            policy = withOption(parameter, text, policy, option, value);
            Algorithm owner = owner(option);
            if (owner != null) {
                inferred = infer(parameter, text, inferred, owner);
            }
        }
        Policy chosen = withAlgorithm(parameter, text, policy, explicit, inferred);
        if (given.contains("delay") && chosen.maxWaitMicros() == 0) {
            throw delayWithoutQueue(parameter, text, chosen);
        }
        return chosen;
    }

    /** The options that take a value (the others are flags, or unknown). */
    private static final Set<String> VALUED = Set.of("burst", "delay", "cold-factor", "min-interval", "warm-up",
            "max-wait", "penalty", "lease");

    /** @return the policy that {@code head} ("100/1m", "20 concurrent") states, every option at its default */
    private static Policy head(String parameter, String text, String head, Algorithm explicit) {
        Matcher concurrent = CONCURRENT.matcher(head);
        if (concurrent.matches()) {
            return Policy.concurrent(number(parameter, text, concurrent.group(1)));
        }
        Matcher rate = RATE.matcher(head);
        if (rate.matches()) {
            long count = number(parameter, text, rate.group(1));
            long amount = rate.group(2).isEmpty() ? 1 : number(parameter, text, rate.group(2));
            Duration period = unit(parameter, text, rate.group(3)).multipliedBy(amount);
            return Policy.of(explicit != null && explicit != Algorithm.CONCURRENCY ? explicit : Policy.DEFAULT_ALGORITHM,
                    count, period);
        }
        throw new ConfigException(parameter, text, "expected \"<n>/<period>\" or \"<n> concurrent\"");
    }

    /** @return {@code policy} with one option of the notation; {@code value} is null for a flag */
    private static Policy withOption(String parameter, String text, Policy policy, String option, String value) {
        return switch (option) {
            case "burst" -> policy.withBurst(number(parameter, text, value));
            case "delay" -> policy.withDelayThreshold(number(parameter, text, value));
            // saturated, not cast (-4294967293 would wrap to 3), so that the policy's own range check refuses it
            case "cold-factor" -> policy.withColdFactor(
                    (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, number(parameter, text, value))));
            case "min-interval" -> policy.withMinInterval(duration(parameter, text, value));
            case "count-rejected" -> policy.withCountRejected(true);
            case "warm-up" -> {
                Duration warmup = duration(parameter, text, value);
                if (warmup.isZero()) {
                    throw new ConfigException(parameter, text, "the warm-up period must be positive");
                }
                yield policy.withWarmup(warmup);
            }
            case "max-wait" -> policy.withMaxWait(duration(parameter, text, value));
            case "penalty" -> policy.withPenalty(duration(parameter, text, value));
            case "lease" -> {
                if (policy.algorithm() != Algorithm.CONCURRENCY) {
                    throw new ConfigException(parameter, text, "lease applies to \"<n> concurrent\" limits, such as"
                            + " \"20 concurrent lease 30s\"");
                }
                yield policy.withLeaseTimeout(duration(parameter, text, value));
            }
            case "staggered" -> policy.withStaggered(true);
            default -> throw new ConfigException(parameter, text, "unknown option \"" + option
                    + "\" (options: burst, min-interval, count-rejected, warm-up, cold-factor, max-wait, delay,"
                    + " lease, staggered, penalty)");
        };
    }

    /**
     * {@code delay} lets the first requests of a queue pass without waiting; without {@code max-wait} the leaky bucket
     * is a meter that queues nothing, so {@code delay} would change nothing. Refused, showing the notation with a
     * max-wait as long as the full bucket takes to drain (the longest any request of it could wait).
     */
    private static ConfigException delayWithoutQueue(String parameter, String text, Policy meter) {
        long drain = meter.capacity() * meter.intervalMicros();          // at most 2^52: Policy's bound
        long wait = Math.min(LONGEST_WAIT_MICROS, (drain + 999) / 1_000 * 1_000);    // whole milliseconds
        String queue = formatWithoutAlgorithm(meter.withMaxWait(Duration.ofNanos(wait * 1_000)));
        return new ConfigException(parameter, text, "delay queues requests only with max-wait, and alone changes "
                + "nothing: add max-wait, such as \"" + queue + "\" (as long as the full bucket takes to drain), or drop "
                + "delay");
    }

    /** @return the algorithm whose own option {@code option} is ({@link Algorithm#options()}), or null */
    private static Algorithm owner(String option) {
        for (Algorithm a : Algorithm.values()) {
            if (a.options().contains(option)) {
                return a;
            }
        }
        return null;
    }

    /** @return the algorithms that take a burst: "token-bucket, leaky-bucket and gcra" */
    private static String bursting() {
        List<String> ids = Arrays.stream(Algorithm.values()).filter(Algorithm::bursts).map(Algorithm::id).toList();
        return ids.size() == 1 ? ids.get(0)
                : String.join(", ", ids.subList(0, ids.size() - 1)) + " and " + ids.get(ids.size() - 1);
    }

    /** Two options that need different algorithms cannot be combined. */
    private static Algorithm infer(String parameter, String text, Algorithm before, Algorithm needed) {
        if (before != null && before != needed) {
            throw new ConfigException(parameter, text, "options of the " + before.id() + " and the " + needed.id()
                    + " algorithms cannot be combined");
        }
        return needed;
    }

    private static Policy withAlgorithm(String parameter, String text, Policy policy, Algorithm explicit,
            Algorithm inferred) {
        if (policy.algorithm() == Algorithm.CONCURRENCY) {
            Policy plain = Policy.concurrent(policy.limit());
            if (!policy.equals(new Policy(plain.algorithm(), plain.limit(), policy.periodMicros(), 0, 0, false, 0,
                    Policy.DEFAULT_COLD_FACTOR, policy.leaseTimeoutMicros(), 0, 0, false, 0))) {
                throw new ConfigException(parameter, text, "\"concurrent\" takes only the lease option, such as"
                        + " \"20 concurrent lease 30s\"");
            }
            if (explicit != null && explicit != Algorithm.CONCURRENCY) {
                throw new ConfigException(parameter, text, "\"concurrent\" limits in-flight requests and cannot use "
                        + explicit.id() + "; write a rate such as \"100/1m\"");
            }
            return policy;
        }
        if (explicit == Algorithm.CONCURRENCY) {
            throw new ConfigException(parameter, text, "the concurrency algorithm takes \"<n> concurrent\"");
        }
        if (explicit != null && inferred != null && explicit != inferred) {
            throw new ConfigException(parameter, text, "this notation needs the " + inferred.id()
                    + " algorithm, but " + explicit.id() + " was configured");
        }
        Algorithm chosen = explicit != null ? explicit : inferred != null ? inferred : Policy.DEFAULT_ALGORITHM;
        if (policy.burst() > 0 && !chosen.bursts()) {
            throw new ConfigException(parameter, text, "burst applies to " + bursting() + ", not " + chosen.id());
        }
        return policy.algorithm() == chosen ? policy : policy.withAlgorithm(chosen);
    }

    /** @return {@code policy} in the notation {@link #parse} reads */
    public static String format(Policy p) {
        String numbers = formatWithoutAlgorithm(p);
        return p.algorithm() == Algorithm.CONCURRENCY ? numbers : numbers + " (" + p.algorithm().id() + ')';
    }

    /**
     * @return {@code policy} in the notation {@link #parse} reads, without the algorithm's name in parentheses (where
     *     the numbers say it, as {@code max-wait} says leaky bucket)
     */
    public static String formatWithoutAlgorithm(Policy p) {
        StringBuilder s = new StringBuilder();
        if (p.algorithm() == Algorithm.CONCURRENCY) {
            s.append(p.limit()).append(" concurrent");
            if (p.leaseTimeoutMicros() != Policy.DEFAULT_LEASE_TIMEOUT_MICROS) {
                s.append(" lease ").append(formatDuration(p.leaseTimeoutMicros()));
            }
            return s.toString();
        }
        s.append(p.limit()).append('/').append(formatDuration(p.periodMicros()));
        if (p.burst() > 0) {
            s.append(" burst ").append(p.burst());
        }
        if (p.minIntervalMicros() > 0) {
            s.append(" min-interval ").append(formatDuration(p.minIntervalMicros()));
        }
        if (p.countRejected()) {
            s.append(" count-rejected");
        }
        if (p.algorithm() == Algorithm.WARM_UP) {
            s.append(" warm-up ").append(formatDuration(p.warmupMicros()));
            if (p.coldFactor() != Policy.DEFAULT_COLD_FACTOR) {
                s.append(" cold-factor ").append(p.coldFactor());
            }
        }
        if (p.maxWaitMicros() > 0) {
            s.append(" max-wait ").append(formatDuration(p.maxWaitMicros()));
        }
        if (p.penaltyMicros() > 0) {
            s.append(" penalty ").append(formatDuration(p.penaltyMicros()));
        }
        if (p.delayThreshold() > 0) {
            s.append(" delay ").append(p.delayThreshold());
        }
        if (p.staggered()) {
            s.append(" staggered");
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

    private static String value(String parameter, String text, String[] tokens, int i) {
        if (i >= tokens.length) {
            throw new ConfigException(parameter, text, "\"" + tokens[i - 1] + "\" needs a value");
        }
        return tokens[i];
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
        return switch (unit) {
            case "ms" -> Duration.ofMillis(1);
            case "s", "sec", "second", "seconds" -> Duration.ofSeconds(1);
            case "m", "min", "minute", "minutes" -> Duration.ofMinutes(1);
            case "h", "hour", "hours" -> Duration.ofHours(1);
            case "d", "day", "days" -> Duration.ofDays(1);
            default -> throw new ConfigException(parameter, text, "unknown unit \"" + unit
                    + "\" (units: ms, s, m, h, d)");
        };
    }
}
