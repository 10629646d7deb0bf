package io.sluice.benchmarks;

import io.sluice.core.Engine;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.ForwardingStore;
import java.util.Arrays;
import java.util.Locale;

/**
 * What {@code leased} costs the client over {@value Keys#COUNT} keys each seen a few times a lease time (issue 31),
 * without Redis's noise: two engines on memory stores that pose as shared (so leased permits stand in front of them,
 * as in front of Redis), one rule with {@code leased 100ms} and one without, keys at random on one thread. The two
 * alternate in windows of 300,000 decisions, the order swapped every round, so that a load that comes and goes on a
 * shared machine weighs on both alike. Prints the time per decision of each, the ratio per round, and what leasing did.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.LeasedColdKeys [rounds]}
 */
public final class LeasedColdKeys {

    private static final int WINDOW = 300_000;
    private static final int WARM_UP_ROUNDS = 4;

    private LeasedColdKeys() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 12;
        String[] keys = Keys.distinct(Keys.COUNT);
        Policy[] policies = {Policy.parse("1000000/1s"), Policy.parse("1000000/1s leased 100ms")};
        Engine[] engines = {engine(), engine()};
        long random = 0x9E3779B97F4A7C15L;
        double[] ratios = new double[rounds];
        for (int round = -WARM_UP_ROUNDS; round < rounds; round++) {
            double[] nanos = new double[2];
            for (int i = 0; i < 2; i++) {
                int e = Math.floorMod(round, 2) == 0 ? i : 1 - i;
                long start = System.nanoTime();
                for (int n = 0; n < WINDOW; n++) {
                    random = Keys.next(random);
                    engines[e].tryAcquire("cold", keys[Keys.index(random, keys.length)], policies[e], 1);
                }
                nanos[e] = (System.nanoTime() - start) / (double) WINDOW;
            }
            if (round >= 0) {
                ratios[round] = nanos[1] / nanos[0];
                System.out.printf(Locale.ROOT, "round %2d: %6.0f ns without leases, %6.0f ns leased: %.3fx%n", round,
                        nanos[0], nanos[1], ratios[round]);
            }
        }
        double[] sorted = ratios.clone();
        Arrays.sort(sorted);
        System.out.printf(Locale.ROOT, "leased time / unleased time: median %.3fx, %.3f-%.3fx over %d rounds%n",
                sorted[rounds / 2], sorted[0], sorted[rounds - 1], rounds);
        System.out.println(engines[1].leaseCounts());
        for (Engine e : engines) {
            e.close();
        }
    }

    private static Engine engine() {
        ForwardingStore shared = new ForwardingStore(MemoryStore.builder().build()) {
            @Override
            public boolean shared() {
                return true;
            }
        };
        return Engine.builder().store(shared).denialCacheSize(0).build();
    }
}
