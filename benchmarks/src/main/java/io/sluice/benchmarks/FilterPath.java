package io.sluice.benchmarks;

import io.sluice.core.Decision;
import io.sluice.core.request.RequestView;
import io.sluice.http.Parameters;
import io.sluice.http.SluiceConfig;
import io.sluice.http.FrontDoor;
import io.sluice.core.time.TimeSource;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;

/**
 * The CPU time of Sluice's own part of an admitted request, without a container: what {@code RateLimitFilter} does per
 * request ({@code FrontDoor.check}, the headers through {@code FrontDoor.allowedHeaders}, {@code awaitsCompletion}),
 * with the configuration of {@link HttpServers} (memory store, a limit no load reaches, both header styles). One
 * thread; the figure is that thread's CPU time per request, so other load on a shared machine changes it far less
 * than a wall-clock rate.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.FilterPath [seconds-per-round] [rounds]
 * </pre>
 */
public final class FilterPath {

    private static long blackhole;

    private FilterPath() {}

    public static void main(String[] args) {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        SluiceConfig config = SluiceConfig.load(Parameters.of("sluice",
                Map.of("limit", "1000000000/1s", "headers", "both"), "init-param"), value -> null);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (FrontDoor door = FrontDoor.open(config, TimeSource.system())) {
            RequestView request = RequestView.builder("GET", "/").remoteAddress("127.0.0.1").build();
            for (int r = 1; r <= rounds; r++) {
                long n = 0;
                long cpu = threads.getCurrentThreadCpuTime();
                long end = System.nanoTime() + seconds * 1_000_000_000L;
                while (System.nanoTime() < end) {
                    for (int i = 0; i < 1_000; i++) {
                        Decision d = door.check(request);
                        door.allowedHeaders(d, request, (name, value) -> blackhole += value.length());
                        if (FrontDoor.awaitsCompletion(d)) {
                            door.completed(request, d, 200);
                        }
                    }
                    n += 1_000;
                }
                cpu = threads.getCurrentThreadCpuTime() - cpu;
                System.out.printf("round %d: %.0f ns CPU per admitted request (%,d requests)%n", r, (double) cpu / n, n);
            }
        }
        System.out.println(blackhole == 42 ? "" : "done");
    }
}
