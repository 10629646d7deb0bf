package io.sluice.demo;

import io.restassured.response.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Back-to-back requests from one fresh client, and the wall-clock span they took. The demo runs on the real clock, so
 * a burst that a window boundary or a refill happened to split says nothing about the policy: {@link #undisturbed}
 * fires a new burst from a new client until one was not split (it does not wait for anything).
 *
 * @param responses in the order sent
 * @param startMillis epoch millisecond before the first request
 * @param endMillis epoch millisecond after the last response
 */
record Burst(List<Response> responses, long startMillis, long endMillis) {

    private static final int ATTEMPTS = 5;

    /** Sends {@code count} requests, one after another, each made by {@code request} for a fresh client. */
    static Burst fire(int count, Function<Integer, Response> request) {
        long start = System.currentTimeMillis();
        List<Response> responses = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            responses.add(request.apply(i));
        }
        return new Burst(responses, start, System.currentTimeMillis());
    }

    /** @return the first burst that {@code undisturbed} accepts, trying up to {@value #ATTEMPTS} times */
    static Burst undisturbed(Predicate<Burst> undisturbed, Supplier<Burst> burst) {
        Burst last = null;
        for (int i = 0; i < ATTEMPTS; i++) {
            last = burst.get();
            if (undisturbed.test(last)) {
                return last;
            }
        }
        throw new AssertionError("every one of " + ATTEMPTS + " bursts was split by a window boundary or took too long;"
                + " the last took " + (last.endMillis - last.startMillis) + " ms");
    }

    /** @return whether the whole burst fell into one epoch-aligned window of {@code window} */
    boolean withinOneWindow(Duration window) {
        return Math.floorDiv(startMillis, window.toMillis()) == Math.floorDiv(endMillis, window.toMillis());
    }

    /** @return whether the burst took less than {@code span} */
    boolean shorterThan(Duration span) {
        return endMillis - startMillis < span.toMillis();
    }

    /** @return the status codes in order */
    List<Integer> statuses() {
        return responses.stream().map(Response::statusCode).toList();
    }

    Response last() {
        return responses.get(responses.size() - 1);
    }
}
