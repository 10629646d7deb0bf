package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.store.MemoryStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The client IP behind proxies, spoofing, and a flood of distinct clients. */
class ClientIpIT {

    @Test
    void aSpoofedForwardedForFromAnUntrustedPeerDoesNotChangeTheKey() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m"))) {
            server.client().header("X-Forwarded-For", "198.51.100.1").get("/").then().statusCode(200);
            server.client().header("X-Forwarded-For", "198.51.100.2").get("/").then().statusCode(429);
            server.client().header("Forwarded", "for=198.51.100.3").get("/").then().statusCode(429);
        }
    }

    @Test
    void behindATrustedProxyTheRealClientIsLimitedWhateverItClaims() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "trusted-proxies", "127.0.0.0/8"))) {
            server.from("6.6.6.6, 203.0.113.9").get("/").then().statusCode(200);
            server.from("7.7.7.7, 203.0.113.9").get("/").then().statusCode(429);    // the proxy saw 203.0.113.9 both times
            server.from("203.0.113.10").get("/").then().statusCode(200);
        }
    }

    @Test
    void theRfc7239HeaderCanBeTheOneTrusted() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "trusted-proxies", "127.0.0.1",
                "client-ip-header", "forwarded"))) {
            server.client().header("Forwarded", "for=\"[2001:db8::1]:4711\"").get("/").then().statusCode(200);
            server.client().header("Forwarded", "for=\"[2001:db8::2]\"").get("/").then().statusCode(429);   // same /64
            server.client().header("Forwarded", "for=203.0.113.9").header("X-Forwarded-For", "203.0.113.9")
                    .get("/").then().statusCode(200);
            server.client().header("X-Forwarded-For", "203.0.113.77").get("/").then().statusCode(200);  // keyed by the proxy
            server.client().header("X-Forwarded-For", "203.0.113.78").get("/").then().statusCode(429);  // XFF is not read
        }
    }

    @Test
    void aHundredThousandDistinctClientsKeepTheStoreBounded() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "5/1h", "trusted-proxies", "127.0.0.1",
                "max-keys", "1000", "headers", "none"))) {
            MemoryStore store = (MemoryStore) server.door().store();
            int ok = 0;
            try (Socket socket = new Socket("127.0.0.1", server.port())) {
                OutputStream out = socket.getOutputStream();
                BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
                for (int batch = 0; batch < 1000; batch++) {
                    StringBuilder requests = new StringBuilder();
                    for (int i = 0; i < 100; i++) {
                        int client = batch * 100 + i;
                        requests.append("GET /app/ HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: 10.")
                                .append(client >> 16).append('.').append((client >> 8) & 0xff).append('.')
                                .append(client & 0xff).append("\r\n\r\n");
                    }
                    out.write(requests.toString().getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    ok += readResponses(in, 100);
                    if (batch % 100 == 99) {
                        assertThat(store.trackedKeys()).as("after %d clients", (batch + 1) * 100).isLessThanOrEqualTo(1000);
                    }
                }
            }
            assertThat(ok).as("every fresh client is admitted").isEqualTo(100_000);
            server.from("192.0.2.1").get("/").then().statusCode(200);
        }
    }

    /** Reads {@code count} pipelined responses ("hello" bodies, fixed length); @return how many were 200 */
    private static int readResponses(BufferedReader in, int count) throws Exception {
        int ok = 0;
        for (int i = 0; i < count; i++) {
            String status = in.readLine();
            if (status.startsWith("HTTP/1.1 200")) {
                ok++;
            }
            int length = 0;
            for (String line = in.readLine(); !line.isEmpty(); line = in.readLine()) {
                if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                    length = Integer.parseInt(line.substring(15).trim());
                }
            }
            for (long skipped = 0; skipped < length; ) {
                skipped += in.skip(length - skipped);
            }
        }
        return ok;
    }
}
