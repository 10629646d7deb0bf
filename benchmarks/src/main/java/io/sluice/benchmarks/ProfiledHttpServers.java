package io.sluice.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import one.profiler.AsyncProfiler;

/**
 * {@link HttpServers} under async-profiler, for {@code benchmarks/http-profile.sh}: starts the same servers, prints
 * {@code ready}, then runs each line of standard input as an async-profiler command (for example
 * {@code start,event=cpu,interval=1ms,threads} and {@code stop,file=sluice.collapsed,collapsed}) and answers it on one
 * line of standard output. The profiler's CPU samples cover Java, JVM and kernel frames alike, so they show where a
 * request's CPU goes, inside and outside the filter.
 */
public final class ProfiledHttpServers {

    private ProfiledHttpServers() {}

    public static void main(String[] args) throws Exception {
        HttpServers.start();
        AsyncProfiler profiler = AsyncProfiler.getInstance();
        System.out.println("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null && !line.isBlank(); line = in.readLine()) {
            String reply;
            try {
                reply = profiler.execute(line.trim());
            } catch (Exception e) {
                reply = "failed: " + e.getMessage();
            }
            System.out.println(reply.strip().replace('\n', ' '));
        }
        System.exit(0);
    }
}
