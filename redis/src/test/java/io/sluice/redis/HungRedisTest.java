package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Engine;
import io.sluice.core.testing.Await;
import io.sluice.core.testing.TestThreads;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A "Redis" that accepts connections and never answers (a hung or paused server, a black hole behind a proxy), with
 * the longest timeout a store takes (60 s): every connection attempt is held for as long as the test runs. Building a
 * store and an engine on it must not wait on any: the build returns while they are held.
 */
class HungRedisTest {

    private static final Duration WITHIN = Duration.ofSeconds(10);

    private final HungServer hung = new HungServer();

    @AfterEach
    void stop() throws IOException {
        hung.close();       // the held attempts fail at once (end of stream), and the engine's threads with them
    }

    /** Accepts connections, reads what they send and answers nothing; counts those the client closed. */
    private static final class HungServer implements AutoCloseable {
        private final ServerSocket server;
        private final List<Socket> accepted = new CopyOnWriteArrayList<>();
        private final AtomicInteger closedByClient = new AtomicInteger();

        HungServer() {
            try {
                server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            TestThreads.OWN.execute(this::accept);
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    accepted.add(s);
                    TestThreads.OWN.execute(() -> drain(s));
                } catch (IOException closed) {
                    return;
                }
            }
        }

        private void drain(Socket s) {
            try (InputStream in = s.getInputStream()) {
                byte[] buffer = new byte[1024];
                while (in.read(buffer) >= 0) {
                    // what the client asks is never answered
                }
                closedByClient.incrementAndGet();
            } catch (IOException closedHere) {
                // closed by close()
            }
        }

        String url() {
            return "redis://127.0.0.1:" + server.getLocalPort() + "?timeout=60000ms";
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : accepted) {
                s.close();
            }
        }
    }

    @Test
    void aStoreAndAnEngineOnItAreBuiltWhileEveryConnectionAttemptIsHeld() {
        CompletableFuture<Engine> built = CompletableFuture.supplyAsync(
                () -> Engine.builder().store(RedisStore.builder().url(hung.url()).build()).build(), TestThreads.OWN);
        Await.until("the store and the engine built", WITHIN, built::isDone);
        // what the engine started on its own threads: the subscription and the first read of the shared settings
        Await.until("a connection attempt under way", WITHIN, () -> !hung.accepted.isEmpty());
        assertThat(hung.closedByClient).as("attempts the client gave up on: none, all still held").hasValue(0);
        Engine engine = built.join();
        try {
            hung.close();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        engine.close();
    }
}
