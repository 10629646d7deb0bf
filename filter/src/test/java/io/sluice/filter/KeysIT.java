package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.restassured.specification.RequestSpecification;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Each key type partitions clients: a second request with the same key is denied, another key is not. */
class KeysIT {

    /**
     * Under {@code limit=1/1m} and {@code key}: request {@code a} passes, {@code a} again is denied, {@code b} passes.
     */
    private static void partitions(String key, UnaryOperator<RequestSpecification> a, UnaryOperator<RequestSpecification> b,
            String path) throws Exception {
        Map<String, String> parameters = new HashMap<>(Map.of("limit", "1/1m", "key", key, "trusted-proxies", "127.0.0.1"));
        try (FilterServer server = FilterServer.start(parameters)) {
            a.apply(server.client()).get(path).then().statusCode(200);
            a.apply(server.client()).get(path).then().statusCode(429);
            b.apply(server.client()).get(path).then().statusCode(200);
        }
    }

    @Test
    void ipKeysTheClientAddress() throws Exception {
        partitions("ip", r -> r.header("X-Forwarded-For", "198.51.100.1"), r -> r.header("X-Forwarded-For", "198.51.100.2"), "/");
    }

    @Test
    void ipGroupsIpv6ClientsByTheirSlash64() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "trusted-proxies", "127.0.0.1"))) {
            server.from("2001:db8:1:2::a").get("/").then().statusCode(200);
            server.from("2001:db8:1:2:ffff::b").get("/").then().statusCode(429);     // the same /64
            server.from("2001:db8:1:3::a").get("/").then().statusCode(200);
        }
        partitions("ip/128", r -> r.header("X-Forwarded-For", "2001:db8::a"), r -> r.header("X-Forwarded-For", "2001:db8::b"), "/");
    }

    @Test
    void headerKeysAnApiKey() throws Exception {
        partitions("header:X-Api-Key", r -> r.header("X-Api-Key", "alpha"), r -> r.header("X-Api-Key", "beta"), "/");
    }

    @Test
    void attributeKeysWhatAnEarlierFilterSet() throws Exception {
        partitions("attribute:plan", r -> r.header("X-Test-Plan", "free"), r -> r.header("X-Test-Plan", "pro"), "/");
    }

    @Test
    void principalKeysTheAuthenticatedUser() throws Exception {
        partitions("principal", r -> r.header("X-Test-User", "alice"), r -> r.header("X-Test-User", "bob"), "/");
    }

    @Test
    void queryKeysAParameterWithoutReadingTheBody() throws Exception {
        partitions("query:client", r -> r.queryParam("client", "c1"), r -> r.queryParam("client", "c 2"), "/");
    }

    @Test
    void paddingTheQueryStringDoesNotSkipAQueryKeyedRule() throws Exception {
        String pad = "x".repeat(9_000);
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "key", "query:client"))) {
            server.client().queryParam("client", "c1").queryParam("pad", pad).get("/").then().statusCode(200);
            server.client().queryParam("client", "c1").queryParam("pad", pad).get("/").then().statusCode(429);
            // a parameter beyond the first 8,192 characters is not looked for: one client's such requests share a key
            server.client().queryParam("pad", pad).queryParam("client", "c2").get("/").then().statusCode(200);
            server.client().queryParam("pad", pad).queryParam("client", "c3").get("/").then().statusCode(429);
        }
    }

    @Test
    void oneClientPaddingItsQueriesExhaustsOnlyItsOwnShareOfTheFallbackKey() throws Exception {
        String pad = "x".repeat(9_000);
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "key", "query:client",
                "trusted-proxies", "127.0.0.1"))) {
            server.from("198.51.100.1").queryParam("pad", pad).queryParam("client", "c1").get("/").then().statusCode(200);
            server.from("198.51.100.1").queryParam("pad", pad).queryParam("client", "c2").get("/").then().statusCode(429);
            server.from("198.51.100.2").queryParam("pad", pad).queryParam("client", "c3").get("/").then().statusCode(200);
            // a malformed value (sent raw: HTTP clients refuse to): one key per client as well
            assertThat(status(server, "198.51.100.2", "/app/?client=c%ZZ")).isEqualTo(200);
            assertThat(status(server, "198.51.100.3", "/app/?client=c%ZZ")).isEqualTo(200);
            assertThat(status(server, "198.51.100.3", "/app/?client=c%Z1")).isEqualTo(429);
        }
    }

    /** @return the status of one GET of {@code target}, sent as written, through the trusted proxy from {@code client} */
    private static int status(FilterServer server, String client, String target) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
            socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: "
                    + client + "\r\nConnection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            String statusLine = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                    java.nio.charset.StandardCharsets.ISO_8859_1)).readLine();
            return Integer.parseInt(statusLine.split(" ")[1]);
        }
    }

    @Test
    void pathKeysEachPath() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "key", "path"))) {
            server.client().get("/a").then().statusCode(200);
            server.client().get("/a").then().statusCode(429);
            server.client().get("/b").then().statusCode(200);
            server.client().urlEncodingEnabled(false).get("/%61").then().statusCode(429);      // the decoded path is the key
        }
    }

    @Test
    void methodKeysEachMethod() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "key", "method"))) {
            server.client().get("/").then().statusCode(200);
            server.client().get("/").then().statusCode(429);
            server.client().post("/").then().statusCode(200);
        }
    }

    @Test
    void globalSharesOneKeyAcrossAllClients() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "key", "global", "trusted-proxies", "127.0.0.1"))) {
            server.from("198.51.100.1").get("/").then().statusCode(200).header("RateLimit-Policy", "\"per-global\";q=1;w=60");
            server.from("198.51.100.2").get("/x").then().statusCode(429);
        }
    }

    @Test
    void combinedKeysNeedEveryPartToMatch() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "key", "ip+path", "trusted-proxies", "127.0.0.1"))) {
            server.from("198.51.100.1").get("/a").then().statusCode(200).header("RateLimit", "\"per-ip-path\";r=0;t=60");
            server.from("198.51.100.1").get("/a").then().statusCode(429);
            server.from("198.51.100.1").get("/b").then().statusCode(200);
            server.from("198.51.100.2").get("/a").then().statusCode(200);
        }
    }

    @Test
    void aUserInAnAllowlistedRoleIsNeverLimited() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "key", "principal",
                "allowlist-roles", "ops, monitoring"))) {
            for (int i = 0; i < 3; i++) {
                server.client().header("X-Test-User", "alice").header("X-Test-Role", "monitoring").get("/").then()
                        .statusCode(200).header("X-Decision-Binding", "none").header("RateLimit", (String) null);
            }
            server.client().header("X-Test-User", "bob").header("X-Test-Role", "user").get("/").then().statusCode(200);
            server.client().header("X-Test-User", "bob").header("X-Test-Role", "user").get("/").then().statusCode(429);
        }
    }

    @Test
    void aRequestWithoutTheKeyIsSkippedByDefault() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "key", "principal"))) {
            server.client().get("/").then().statusCode(200).header("X-Decision-Binding", "none").header("RateLimit", (String) null);
            server.client().get("/").then().statusCode(200);
        }
    }

    @Test
    void aRequestWithoutTheKeyCanCountAsAnonymous() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "key", "principal", "on-missing-key", "anonymous"))) {
            server.client().get("/").then().statusCode(200);
            server.client().get("/").then().statusCode(429);      // every anonymous request shares one key
            server.client().header("X-Test-User", "alice").get("/").then().statusCode(200);
        }
    }
}
