package io.sluice.benchmarks;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.Decision;
import io.sluice.core.Engine;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.ManualTimeSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Draws, for every algorithm, the same bursty traffic shaped by it: one SVG per algorithm, from the real algorithms
 * (an {@link Engine} over a {@link MemoryStore} on a manual clock), for the algorithm guide, docs/algorithms.md.
 *
 * <p>Traffic, 30 s: a steady request every 250 ms, and bursts of 12 requests at 5 s, 12 s, 20 s and 26 s. Each bar is
 * 500 ms: green requests were allowed, red ones denied. Regenerate with
 * {@code mvn -q -B -pl benchmarks -am package -DskipTests && java -cp benchmarks/target/benchmarks.jar
 * io.sluice.benchmarks.AlgorithmCharts docs/charts}.
 */
public final class AlgorithmCharts {

    private static final long SECOND = 1_000_000;
    private static final long DURATION = 30 * SECOND;
    private static final long BAR = SECOND / 2;
    private static final long[] BURSTS = {5 * SECOND, 12 * SECOND, 20 * SECOND, 26 * SECOND};
    private static final int BURST_SIZE = 12;
    /** Concurrency: each request is in flight this long. */
    private static final long HOLD = 700_000;

    private AlgorithmCharts() {}

    /** The policy each chart shows: about 5 per second, with room for a burst where the algorithm has one. */
    static Map<Algorithm, String> policies() {
        Map<Algorithm, String> p = new LinkedHashMap<>();
        p.put(Algorithm.FIXED_WINDOW, "5/1s");
        p.put(Algorithm.SLIDING_WINDOW, "5/1s");
        p.put(Algorithm.SLIDING_LOG, "5/1s");
        p.put(Algorithm.TOKEN_BUCKET, "5/1s burst 10");
        p.put(Algorithm.LEAKY_BUCKET, "5/1s burst 10");
        p.put(Algorithm.GCRA, "5/1s burst 10");
        p.put(Algorithm.WARM_UP, "5/1s warm-up 10s");
        p.put(Algorithm.CONCURRENCY, "3 concurrent");
        return p;
    }

    /** The arrival times of the traffic, in microseconds from the start, in order. */
    static List<Long> arrivals() {
        List<Long> t = new ArrayList<>();
        for (long at = 0; at < DURATION; at += 250_000) {
            t.add(at);
        }
        for (long burst : BURSTS) {
            for (int i = 0; i < BURST_SIZE; i++) {
                t.add(burst + i * 10_000L);
            }
        }
        t.sort(Long::compare);
        return t;
    }

    /** Allowed and denied per bar for one algorithm. */
    static int[][] shape(Algorithm algorithm, String notation) {
        ManualTimeSource clock = new ManualTimeSource();
        Policy policy = io.sluice.core.policy.PolicyParser.parse("limit", notation,
                algorithm == Algorithm.CONCURRENCY ? null : algorithm);
        Engine engine = Engine.builder().timeSource(clock).store(MemoryStore.builder().timeSource(clock).build())
                .denialCacheSize(0).rule(Rule.builder("chart").policy(policy).key(r -> "client").build()).build();
        RequestView request = RequestView.builder("GET", "/").remoteAddress("10.0.0.1").build();
        int bars = (int) (DURATION / BAR);
        int[][] counts = new int[bars][2];
        List<long[]> inFlight = new ArrayList<>();             // {release time, index into decisions}
        List<Decision> held = new ArrayList<>();
        long start = clock.nowMicros();
        for (long at : arrivals()) {
            clock.set(start + at);
            for (int i = inFlight.size() - 1; i >= 0; i--) {
                if (inFlight.get(i)[0] <= at) {
                    engine.release(held.get((int) inFlight.get(i)[1]));
                    inFlight.remove(i);
                }
            }
            Decision d = engine.check(request);
            counts[(int) (at / BAR)][d.allowed() ? 0 : 1]++;
            if (d.allowed() && !d.leases().isEmpty()) {
                held.add(d);
                inFlight.add(new long[] {at + HOLD, held.size() - 1});
            }
        }
        return counts;
    }

    private static final int WIDTH = 720;
    private static final int HEIGHT = 200;
    private static final int LEFT = 36;
    private static final int BOTTOM = 28;
    private static final int TOP = 34;
    /** The most requests a bar shows. */
    private static final int MOST = 14;

    static String svg(Algorithm algorithm, String notation, int[][] counts) {
        double barWidth = (WIDTH - LEFT - 10) / (double) counts.length;
        double unit = (HEIGHT - BOTTOM - TOP) / (double) MOST;
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">%n", WIDTH, HEIGHT, WIDTH, HEIGHT));
        s.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>%n", WIDTH, HEIGHT));
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"16\" font-size=\"13\" font-weight=\"bold\">%s — %s</text>%n",
                LEFT, algorithm.id(), escape(notation)));
        int allowed = 0;
        int denied = 0;
        for (int[] c : counts) {
            allowed += c[0];
            denied += c[1];
        }
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"16\" text-anchor=\"end\"><tspan fill=\"#1a7f37\">"
                + "allowed %d</tspan>  <tspan fill=\"#cf222e\">denied %d</tspan></text>%n", WIDTH - 10, allowed, denied));
        axes(s, barWidth, unit);
        bars(s, counts, barWidth, unit);
        s.append("</svg>\n");
        return s.toString();
    }

    /** The time axis, a label every 5 s, and the request axis. */
    private static void axes(StringBuilder s, double barWidth, double unit) {
        int base = HEIGHT - BOTTOM;
        s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>%n",
                LEFT, base, WIDTH - 10, base));
        for (int sec = 0; sec <= DURATION / SECOND; sec += 5) {
            double x = LEFT + sec * (SECOND / BAR) * barWidth;
            s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%ds</text>%n",
                    x, base + 16, sec));
        }
        for (int requests = 0; requests <= MOST; requests += 7) {
            double y = base - requests * unit;
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%d</text>%n",
                    LEFT - 6, y + 4, requests));
        }
    }

    /** One bar per time slot: the allowed requests in green, the denied above them in red. */
    private static void bars(StringBuilder s, int[][] counts, double barWidth, double unit) {
        int base = HEIGHT - BOTTOM;
        for (int i = 0; i < counts.length; i++) {
            double x = LEFT + i * barWidth + 1;
            double ha = counts[i][0] * unit;
            double hd = Math.min(counts[i][1], MOST - counts[i][0]) * unit;
            if (ha > 0) {
                s.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#2da44e\"/>%n",
                        x, base - ha, barWidth - 2, ha));
            }
            if (hd > 0) {
                s.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#e5534b\"/>%n",
                        x, base - ha - hd, barWidth - 2, hd));
            }
        }
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : "docs/charts");
        Files.createDirectories(dir);
        for (Map.Entry<Algorithm, String> e : policies().entrySet()) {
            Path file = dir.resolve(e.getKey().id() + ".svg");
            Files.writeString(file, svg(e.getKey(), e.getValue(), shape(e.getKey(), e.getValue())), StandardCharsets.UTF_8);
            System.out.println("wrote " + file);
        }
    }
}
