package io.sluice.core.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} the tests start and stop themselves, on a free loopback port: the one
 * {@code SLUICE_REDIS_SERVER} names, else the binary on the {@code PATH} when there is one, else the Linux/macOS binary
 * shipped in the {@code com.github.codemonstur:embedded-redis} test dependency (Redis 6.2); {@link RedisServers} says
 * how. {@link #external()} uses the server at {@code SLUICE_REDIS_URL} instead. Tests that must hold on every version
 * ({@link #binaries()}) start each binary there is with {@link #start(Path, String...)}.
 */
public final class RedisProcess implements AutoCloseable {

    private final int port;
    private final List<String> extra;
    private boolean sentinel;
    private final Path dir;
    private Process process;

    private final Path executable;

    private RedisProcess(int port, List<String> extra) throws IOException {
        this(binary(), port, extra);
    }

    private RedisProcess(Path executable, int port, List<String> extra) throws IOException {
        this.executable = executable;
        this.port = port;
        this.extra = extra;
        this.dir = Files.createTempDirectory("sluice-redis-" + port);
    }

    /** @return the URL in {@code SLUICE_REDIS_URL}, or null when it is not set */
    public static String external() {
        String url = System.getenv("SLUICE_REDIS_URL");
        return url == null || url.isBlank() ? null : url.trim();
    }

    /** Starts a standalone redis-server on a free port. */
    public static RedisProcess start(String... extraArgs) throws IOException {
        return start(binary(), extraArgs);
    }

    /** Starts {@code binary} (one of {@link #binaries()}) as a standalone server on a free port. */
    public static RedisProcess start(Path binary, String... extraArgs) throws IOException {
        return launchOnSomePort(() -> new RedisProcess(binary, freePort(), List.of(extraArgs)));
    }

    /**
     * Starts a Redis Cluster node (cluster mode, its own nodes file) on a free port whose bus port (+10000) is free
     * too, below the kernel's range of ports for outgoing connections, which could take one between the choice and
     * the bind.
     */
    public static RedisProcess startClusterNode(String... extraArgs) throws IOException {
        return launchOnSomePort(() -> {
            int port = freeClusterPort();
            List<String> args = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file",
                    "nodes-" + port + ".conf"));
            args.addAll(List.of(extraArgs));
            return new RedisProcess(port, args);
        });
    }

    /** A process not yet launched, on a port of its own choice. */
    private interface OnSomePort {
        RedisProcess create() throws IOException;
    }

    /** Launches what {@code process} creates; again, on another port, while the chosen one was taken meanwhile. */
    private static RedisProcess launchOnSomePort(OnSomePort process) throws IOException {
        for (int attempt = 1; ; attempt++) {
            RedisProcess redis = process.create();
            try {
                redis.launch();
                return redis;
            } catch (PortTaken taken) {
                if (attempt == PORT_ATTEMPTS) {
                    throw taken;
                }
                // the port was free when chosen and taken before redis-server bound it: choose again
            }
        }
    }

    /** Attempts at a free port: a port taken between the choice and the bind is rare, twice in a row rarer still. */
    private static final int PORT_ATTEMPTS = 5;

    /** redis-server could not bind its port (or its cluster bus port): another process took it first. */
    static final class PortTaken extends IOException {
        private static final long serialVersionUID = 1L;

        PortTaken(String message) {
            super(message);
        }
    }

    /**
     * @param started receives the servers this starts, for the caller to stop
     * @return the URL of the external Redis when one is given ({@link #external()}), else of one server started per
     *     version found ({@link #binaries()}): the Redis a differential test runs against
     */
    public static List<String> everyVersion(List<RedisProcess> started) throws IOException {
        String external = external();
        if (external != null) {
            return List.of(external);
        }
        List<String> urls = new ArrayList<>();
        for (Path binary : binaries()) {
            RedisProcess redis = start(binary);
            started.add(redis);
            urls.add(redis.url());
        }
        return urls;
    }

    /**
     * @return every redis-server these tests can start, each once: the one on the {@code PATH} (on CI, Debian's Redis
     *     7), then the embedded Redis 6.2; only the {@link #chosen()} one when {@code SLUICE_REDIS_SERVER} is set
     */
    public static List<Path> binaries() throws IOException {
        return RedisServers.binaries();
    }

    /** @return the server {@code SLUICE_REDIS_SERVER} names (the one every test starts), if it is set */
    public static Optional<Path> chosen() throws IOException {
        return RedisServers.chosen();
    }

    /** @return the {@code redis_version} that the server at {@code url} reports */
    public static String version(String url) {
        try (redis.clients.jedis.Jedis jedis = new redis.clients.jedis.Jedis(java.net.URI.create(url))) {
            for (String line : jedis.info("server").split("\r?\n")) {
                if (line.startsWith("redis_version:")) {
                    return line.substring("redis_version:".length()).trim();
                }
            }
            throw new IllegalStateException("no redis_version in INFO server of " + url);
        }
    }

    /** @return the binary this process runs */
    public Path binaryPath() {
        return executable;
    }

    /** Starts a redis-server on a given port (a restart of a killed one, or a cluster node). */
    public static RedisProcess startOn(int port, String... extraArgs) throws IOException {
        RedisProcess redis = new RedisProcess(port, List.of(extraArgs));
        redis.launch();
        return redis;
    }

    /**
     * Starts a Redis Sentinel on a free port watching the master at {@code masterPort} as {@code masterName}, with
     * quorum 1 and a one-second down-after time.
     */
    public static RedisProcess sentinel(String masterName, int masterPort, String... configLines) throws IOException {
        return sentinelOn(freePort(), masterName, masterPort, configLines);
    }

    /** {@link #sentinel} on {@code port}; {@code configLines} are added to its {@code sentinel.conf}. */
    public static RedisProcess sentinelOn(int port, String masterName, int masterPort, String... configLines)
            throws IOException {
        RedisProcess s = new RedisProcess(port, List.of());
        s.sentinel = true;
        Files.writeString(s.dir.resolve("sentinel.conf"), "port " + s.port + "\nbind 127.0.0.1\nprotected-mode no\n"
                + "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " 1\n"
                + "sentinel down-after-milliseconds " + masterName + " 1000\n"
                + "sentinel failover-timeout " + masterName + " 3000\n"
                + String.join("\n", configLines) + "\n");
        s.launch();
        return s;
    }

    public int port() {
        return port;
    }

    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** Kills the server at once (SIGKILL), as a crash would. */
    public void kill() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Stops the server with {@code SIGSTOP}, as a hung or swapped-out process: its port and connections stay open and
     * the kernel still accepts new ones, but nothing is answered until {@link #resume()}.
     */
    public void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** Lets a {@link #pause() paused} server run again ({@code SIGCONT}). */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        // the shell's own kill: a machine without procps has no kill executable
        Process kill = new ProcessBuilder("sh", "-c", "kill -" + name + " " + process.pid()).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            kill.destroyForcibly();         // not left behind when it hangs
            throw new IOException("kill -" + name + " " + process.pid() + " failed");
        }
    }

    /** Starts the server again on the same port, with empty memory (no persistence). */
    public void restart() throws IOException {
        kill0();
        launch();
    }

    private void kill0() throws IOException {
        try {
            kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private void launch() throws IOException {
        List<String> command = sentinel
                ? new ArrayList<>(List.of(executable.toString(), dir.resolve("sentinel.conf").toString(), "--sentinel"))
                : new ArrayList<>(List.of(executable.toString(), "--port", Integer.toString(port),
                        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(),
                        "--protected-mode", "no"));
        command.addAll(extra);
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile()).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!answersPing()) {
            if (!process.isAlive()) {
                String log = Files.readString(dir.resolve("redis.log"));
                if (log.contains("Address already in use")) {
                    throw new PortTaken("redis-server could not bind port " + port + ": " + log);
                }
                throw new IOException("redis-server exited: " + log);
            }
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();          // not left running after the test
                throw new IOException("redis-server did not answer on port " + port);
            }
            Thread.onSpinWait();
        }
        RedisServers.report(executable, port);
    }

    private boolean answersPing() {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(1000);
            s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] buf = new byte[7];
            int n = s.getInputStream().read(buf);
            String answer = n > 0 ? new String(buf, 0, n, StandardCharsets.US_ASCII) : "";
            return answer.startsWith("+PONG") || answer.startsWith("-NOAUTH");    // up, with --requirepass
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() throws IOException {
        kill0();
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * A free port whose cluster bus port (port + 10000) is free too, both below 32768, where Linux's default range
     * for the local ports of outgoing connections begins.
     */
    private static int freeClusterPort() throws IOException {
        for (int i = 0; i < 100; i++) {
            int port = 10_000 + (int) (Math.random() * 12_700);
            try (ServerSocket a = new ServerSocket(port); ServerSocket b = new ServerSocket(port + 10_000)) {
                return port;
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IOException("no free port pair for a cluster node");
    }

    private static Path binary() throws IOException {
        return RedisServers.binary();
    }

    /** @return the {@code redis-server} on the {@code PATH}, if there is one */
    public static Optional<Path> onPath() {
        return RedisServers.onPath();
    }

    /** @return the Redis 6.2 binary of {@code embedded-redis}, extracted once to a temporary file */
    public static Path embedded() throws IOException {
        return RedisServers.embedded();
    }
}
