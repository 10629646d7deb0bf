package io.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.testing.ManualTimeSource;
import java.util.ArrayList;
import java.util.List;

/**
 * Whole-timeline assertions written as strings, after Guava's {@code FakeStopwatch}. Each event is
 * {@code "<time> [cost=N] allow|deny [remaining=N] [retry=D] [reset=D] [delay=D]"}: the time is measured from
 * {@link ManualTimeSource#START_MICROS} (a whole day, so windows align) and may go backwards; durations are
 * {@code 250us}, {@code 200ms}, {@code 2s}, {@code 1m}, {@code 1h} or {@code never}.
 *
 * <pre>
 * Timeline.of(new Gcra(), "5/s burst 2")
 *     .expect("0ms allow", "0ms allow", "0ms deny retry=200ms", "200ms allow");
 * </pre>
 */
final class Timeline<S> {

    private final RateAlgorithm<S> algorithm;
    private final Policy policy;
    private S state;

    private Timeline(RateAlgorithm<S> algorithm, Policy policy) {
        this.algorithm = algorithm;
        this.policy = policy;
    }

    static <S> Timeline<S> of(RateAlgorithm<S> algorithm, String notation) {
        return new Timeline<>(algorithm, Policy.parse(notation).withAlgorithm(((Definition) algorithm).algorithm()));
    }

    static <S> Timeline<S> of(RateAlgorithm<S> algorithm, Policy policy) {
        return new Timeline<>(algorithm, policy);
    }

    /** Runs the events in order, asserting each; returns this to continue the timeline. */
    Timeline<S> expect(String... events) {
        List<String> log = new ArrayList<>();
        for (String event : events) {
            String[] parts = event.trim().split("\\s+");
            long at = ManualTimeSource.START_MICROS + micros(parts[0]);
            long cost = 1;
            int i = 1;
            if (parts[i].startsWith("cost=")) {
                cost = Long.parseLong(parts[i++].substring(5));
            }
            boolean allow = switch (parts[i++]) {
                case "allow" -> true;
                case "deny" -> false;
                default -> throw new IllegalArgumentException("expected allow or deny in \"" + event + "\"");
            };
            Outcome outcome = apply(at, cost);
            log.add(event + " -> " + outcome);
            String where = "event \"" + event + "\" of " + policy + "; so far:\n  " + String.join("\n  ", log);
            assertThat(outcome.allowed()).as(where).isEqualTo(allow);
            for (; i < parts.length; i++) {
                String[] kv = parts[i].split("=", 2);
                long expected = kv[0].equals("remaining") ? Long.parseLong(kv[1]) : micros(kv[1]);
                long actual = switch (kv[0]) {
                    case "remaining" -> outcome.remaining();
                    case "retry" -> outcome.retryAfterMicros();
                    case "reset" -> outcome.resetAfterMicros();
                    case "delay" -> outcome.delayMicros();
                    default -> throw new IllegalArgumentException("unknown field " + kv[0] + " in \"" + event + "\"");
                };
                assertThat(actual).as(kv[0] + " in " + where).isEqualTo(expected);
            }
        }
        return this;
    }

    /** Steps once at {@code atMicros} (absolute), keeping the state as a store would. */
    Outcome apply(long atMicros, long cost) {
        Step<S> step = algorithm.step(state, atMicros, cost, policy);
        if (step.outcome().allowed()) {
            state = step.state();
        } else {
            state = algorithm.onDenied(state, atMicros, cost, policy);
        }
        assertThat(algorithm.ttlMicros(state, atMicros, policy)).as("ttl").isPositive();
        return step.outcome();
    }

    S state() {
        return state;
    }

    /** The absolute time of a timeline offset such as {@code "15s"}. */
    static long at(String offset) {
        return ManualTimeSource.START_MICROS + micros(offset);
    }

    static long micros(String d) {
        if (d.equals("never")) {
            return Outcome.NEVER;
        }
        boolean negative = d.startsWith("-");
        String s = negative ? d.substring(1) : d;
        long value;
        if (s.endsWith("us")) {
            value = Long.parseLong(s.substring(0, s.length() - 2));
        } else if (s.endsWith("ms")) {
            value = Long.parseLong(s.substring(0, s.length() - 2)) * 1_000;
        } else if (s.endsWith("s")) {
            value = (long) (Double.parseDouble(s.substring(0, s.length() - 1)) * 1_000_000);
        } else if (s.endsWith("m")) {
            value = Long.parseLong(s.substring(0, s.length() - 1)) * 60_000_000;
        } else if (s.endsWith("h")) {
            value = Long.parseLong(s.substring(0, s.length() - 1)) * 3_600_000_000L;
        } else {
            throw new IllegalArgumentException("bad duration " + d);
        }
        return negative ? -value : value;
    }
}
