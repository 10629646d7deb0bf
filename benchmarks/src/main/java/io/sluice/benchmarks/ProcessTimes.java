package io.sluice.benchmarks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This JVM's kernel CPU time and its threads' context switches, from Linux's {@code /proc} (zeros elsewhere): what a
 * thread that waits costs beside its own code (issue 31: the client's CPU per decision, split).
 *
 * @param systemNanos CPU time spent in the kernel on this process's behalf ({@code stime}), at the clock tick's grain
 * @param switches context switches of the live threads, voluntary (a wait) and not
 * @param involuntary of those, the ones not asked for: a thread preempted while it could run
 */
record ProcessTimes(long systemNanos, long switches, long involuntary) {

    /** The clock tick of {@code /proc/self/stat}'s times: 100 Hz on every Linux this runs on. */
    private static final long TICK_NANOS = 10_000_000L;

    /** @return the figures now, or zeros where {@code /proc} cannot be read */
    static ProcessTimes now() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long system = Long.parseLong(fields[12]) * TICK_NANOS;     // field 15 of the line: stime
            long[] switches = threadSwitches();
            return new ProcessTimes(system, switches[0] + switches[1], switches[1]);
        } catch (IOException | RuntimeException e) {
            return new ProcessTimes(0, 0, 0);
        }
    }

    /** @return the figures from {@code start} to this one */
    ProcessTimes since(ProcessTimes start) {
        return new ProcessTimes(systemNanos - start.systemNanos, switches - start.switches,
                involuntary - start.involuntary);
    }

    /** @return the live threads' voluntary and involuntary context switches */
    private static long[] threadSwitches() throws IOException {
        long[] sum = new long[2];
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        int kind = line.startsWith("voluntary_ctxt_switches:") ? 0
                                : line.startsWith("nonvoluntary_ctxt_switches:") ? 1 : -1;
                        if (kind >= 0) {
                            sum[kind] += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (IOException gone) {
                    // the thread ended meanwhile
                }
            }
        }
        return sum;
    }
}
