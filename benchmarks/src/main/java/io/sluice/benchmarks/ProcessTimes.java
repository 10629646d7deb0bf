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
 */
record ProcessTimes(long systemNanos, long switches) {

    /** The clock tick of {@code /proc/self/stat}'s times: 100 Hz on every Linux this runs on. */
    private static final long TICK_NANOS = 10_000_000L;

    /** @return the figures now, or zeros where {@code /proc} cannot be read */
    static ProcessTimes now() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long system = Long.parseLong(fields[12]) * TICK_NANOS;     // field 15 of the line: stime
            return new ProcessTimes(system, threadSwitches());
        } catch (IOException | RuntimeException e) {
            return new ProcessTimes(0, 0);
        }
    }

    /** @return the figures from {@code start} to this one */
    ProcessTimes since(ProcessTimes start) {
        return new ProcessTimes(systemNanos - start.systemNanos, switches - start.switches);
    }

    private static long threadSwitches() throws IOException {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")
                                || line.startsWith("nonvoluntary_ctxt_switches:")) {
                            sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
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
