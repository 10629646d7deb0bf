package io.sluice.core.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Which {@code redis-server} {@link RedisProcess} starts: the one {@value #CHOICE} names, else the one on the
 * {@code PATH}, else the Linux/macOS binary shipped in the {@code com.github.codemonstur:embedded-redis} test
 * dependency (Redis 6.2). {@value #CHOICE} is what runs one whole suite on another version: {@code embedded} (the
 * 6.2), a path, or a command on the {@code PATH}; a wrapper script must {@code exec} the server, so that the process
 * the tests start, kill and stop is the server itself ({@code .ci/redis-versions.sh} writes such wrappers for Valkey
 * 8.0 and Redis 8.0).
 */
final class RedisServers {

    /** The environment variable that chooses the server. */
    static final String CHOICE = "SLUICE_REDIS_SERVER";

    private static volatile Path embedded;
    private static final Set<Path> reported = ConcurrentHashMap.newKeySet();

    private RedisServers() {}

    /** @return the server {@value #CHOICE} names, if it is set */
    static Optional<Path> chosen() throws IOException {
        return chosen(System.getenv());
    }

    static Optional<Path> chosen(Map<String, String> env) throws IOException {
        String value = env.getOrDefault(CHOICE, "").trim();
        if (value.isEmpty()) {
            return Optional.empty();
        }
        if (value.equals("embedded")) {
            return Optional.of(embedded());
        }
        Optional<Path> found = value.contains(File.separator)
                ? Optional.of(Path.of(value)).filter(Files::isExecutable)
                : onPath(value, env);
        if (found.isEmpty()) {
            throw new IllegalStateException(CHOICE + "=" + value + ": no such executable (give \"embedded\" for the "
                    + "embedded Redis 6.2, a path such as ~/.cache/sluice-redis/redis-8.0/server, or a command on the "
                    + "PATH such as redis-server)");
        }
        return found;
    }

    /** @return the server a test starts when it names none */
    static Path binary() throws IOException {
        Optional<Path> chosen = chosen();
        if (chosen.isPresent()) {
            return chosen.get();
        }
        Optional<Path> path = onPath();
        return path.isPresent() ? path.get() : embedded();
    }

    /**
     * @return every server a test that must hold on each version starts: the chosen one alone, else the one on the
     *     {@code PATH} (on CI, Debian's Redis 7) and the embedded Redis 6.2
     */
    static List<Path> binaries() throws IOException {
        Optional<Path> chosen = chosen();
        if (chosen.isPresent()) {
            return List.of(chosen.get());
        }
        List<Path> all = new ArrayList<>();
        onPath().ifPresent(all::add);
        all.add(embedded());
        return all;
    }

    /** @return the {@code redis-server} on the {@code PATH}, if there is one */
    static Optional<Path> onPath() {
        return onPath("redis-server", System.getenv());
    }

    private static Optional<Path> onPath(String command, Map<String, String> env) {
        for (String dir : env.getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(dir, command);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** @return the Redis 6.2 binary of {@code embedded-redis}, extracted once to a temporary file */
    static synchronized Path embedded() throws IOException {
        if (embedded != null) {
            return embedded;
        }
        String os = System.getProperty("os.name").toLowerCase();
        String arch = System.getProperty("os.arch");
        String resource = os.contains("mac")
                ? (arch.contains("aarch64") ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64")
                : (arch.contains("aarch64") ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64");
        try (InputStream in = RedisServers.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("no " + resource + " in embedded-redis");
            }
            Path file = Files.createTempFile("redis-server", "");
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            file.toFile().setExecutable(true);
            file.toFile().deleteOnExit();
            return embedded = file;
        }
    }

    /**
     * Prints, the first time {@code binary} answers on {@code port}, which server it is by its {@code INFO server}
     * ({@code .ci/run} shows these lines: the version each suite ran on). A server that asks for a password is
     * described when another one of the same binary starts.
     */
    static void report(Path binary, int port) {
        if (reported.contains(binary)) {
            return;
        }
        try (Jedis jedis = new Jedis(URI.create("redis://127.0.0.1:" + port))) {
            String server = describe(jedis.info("server"));
            if (reported.add(binary)) {
                System.out.println("RedisProcess: " + binary + " is " + server);
            }
        } catch (JedisException needsPassword) {
            // described by the next start without one
        }
    }

    /** @return {@code "Redis 7.0.15"}, or for Valkey {@code "Valkey 8.0.1 (redis_version 7.2.4)"} */
    static String describe(String infoServer) {
        String redis = field(infoServer, "redis_version");
        String valkey = field(infoServer, "valkey_version");
        return valkey == null ? "Redis " + redis : "Valkey " + valkey + " (redis_version " + redis + ")";
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return null;
    }
}
