package io.sluice.core.algorithm;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * One algorithm as the stores see it, beside its step: its code in the Redis script, the arguments it sends the
 * script, and its Lua fragment ({@code <id>.lua}, a resource beside its class). Each algorithm's class implements
 * it, and {@link Algorithms} lists them (and says what else adding an algorithm takes).
 *
 * <p>The fragment is cut into sections by lines {@code --@ <section>}: {@code step}, the code of the script's loop
 * over a request's checks that decides one check (inline, or calling the script's library); {@code library}, the
 * functions it adds to the library. Text before the first section is its header, for the reader. Each algorithm's
 * decision is written once, in its step: an algorithm with a {@linkplain #fast() fast mode} has no code of its own
 * for it, the script's assembly places the same step a second time, in that mode. In the fragments, {@code ${NAME}}
 * stands for an algorithm's code (its enum constant's name, such as {@code ${GCRA}}), {@code ${NAME_MODE}} for its
 * code as a one-letter string, and {@code ${'c'}} for the code of the character {@code c}.
 */
public interface Definition {

    /** Where an algorithm writes the arguments it sends the script, in the order its fragment reads them. */
    interface Arguments {
        /** Adds a decimal integer. */
        void add(long number);

        /** Adds a string; null as the empty string. */
        void add(String text);
    }

    /** @return the algorithm this defines */
    Algorithm algorithm();

    /**
     * @return its code in the script: a lower-case letter, other than {@code b}, {@code e} and {@code r} (the
     *     script's modes); upper case marks a shadow check
     */
    char code();

    /**
     * @return whether the script decides it inline, in its loop (the common algorithms: no function is created per
     *     call); otherwise its step calls the script's library, which only requests that need it create
     */
    boolean inline();

    /** Writes the numbers of {@code policy} that its fragment reads (a store encodes them once per policy). */
    void arguments(Policy policy, Arguments out);

    /** @return how many arguments {@link #checkArguments} writes: the same for every check */
    default int checkArgumentCount() {
        return 0;
    }

    /** Writes the arguments of one check that follow its policy's numbers (a stagger offset, a lease id). */
    default void checkArguments(String key, String leaseId, Policy policy, Arguments out) {}

    /**
     * @return the limit a client is told: the capacity of a bucket ({@link Policy#capacity()}, its burst), else the
     *     policy's limit
     */
    default long limit(Policy policy) {
        return policy.capacity();
    }

    /** @return whether its state names members by the request's id (the script then receives one) */
    default boolean namesMembers() {
        return false;
    }

    /**
     * @return whether a request of one enforced check of cost 1 is sent in its fast mode: the mode is its code,
     *     followed only by its policy's numbers (so it has no {@link #checkArguments}), and the script runs its step
     *     there, with the locals the loop gives it, and replies as the loop does (so it must be {@link #inline()})
     */
    default boolean fast() {
        return false;
    }

    /** @return the name of its Lua fragment, beside its class: its id, {@code gcra.lua} */
    default String fragment() {
        return algorithm().id() + ".lua";
    }

    /** @return the text of its Lua fragment */
    default String lua() {
        try (InputStream in = getClass().getResourceAsStream(fragment())) {
            if (in == null) {
                throw new IllegalStateException(fragment() + " is missing beside " + getClass().getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + fragment(), e);
        }
    }
}
