package io.sluice.benchmarks;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** Counts denied calls per iteration, reported beside the timing: it shows that the allowed path was measured. */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class Denials {

    /** Denied calls in this iteration. */
    public long denied;

    @Setup(Level.Iteration)
    public void clear() {
        denied = 0;
    }

    boolean count(boolean allowed) {
        if (!allowed) {
            denied++;
        }
        return allowed;
    }
}
