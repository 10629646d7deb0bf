package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import static io.restassured.RestAssured.given;

import io.restassured.specification.RequestSpecification;
import io.sluice.core.store.FleetMessage;
import io.sluice.http.Parameters;
import io.sluice.http.SluiceConfig;
import io.sluice.http.FrontDoor;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.LogCapture;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import jakarta.servlet.DispatcherType;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

/** The opt-in admin endpoint: inspect and reset a key, only for an authenticated caller in the admin role. */
class AdminIT {

    @Test
    void anAdminInspectsAndUnblocksAKey() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "2/1m", "exclude", "/sluice-admin"))) {
            server.client().get("/").then().statusCode(200);
            server.client().get("/").then().statusCode(200);
            server.client().get("/").then().statusCode(429);

            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").get("/sluice-admin")
                    .then().statusCode(200).contentType("application/json").body("limit", equalTo(2))
                    .body("remaining", equalTo(0));
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").delete("/sluice-admin")
                    .then().statusCode(204);
            server.client().get("/").then().statusCode(200);
        }
    }

    @Test
    void aLongApiKeyIsGivenAsTheClientSendsItNotAsItsHash() throws Exception {
        String apiKey = "k-" + "0123456789".repeat(8);          // over 64 characters: stored as its hash
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "key", "header:X-Api-Key",
                "exclude", "/sluice-admin"))) {
            server.client().header("X-Api-Key", apiKey).get("/").then().statusCode(200);
            server.client().header("X-Api-Key", apiKey).get("/").then().statusCode(429);

            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-header-x-api-key").queryParam("key", apiKey).get("/sluice-admin")
                    .then().statusCode(200).body("remaining", equalTo(1));     // as stored: no such key
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-header-x-api-key").queryParam("value", apiKey).get("/sluice-admin")
                    .then().statusCode(200).body("remaining", equalTo(0));
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-header-x-api-key").queryParam("value", " " + apiKey + " ")
                    .delete("/sluice-admin").then().statusCode(204);
            server.client().header("X-Api-Key", apiKey).get("/").then().statusCode(200);
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-header-x-api-key").queryParam("key", "k").queryParam("value", "k")
                    .get("/sluice-admin").then().statusCode(400).body(containsString("either key"));
        }
    }

    @Test
    void aTierIsGivenAsItsSelectorSeesItAndAnUnknownOneIsNotFound() throws Exception {
        java.nio.file.Path rules = java.nio.file.Files.createTempFile("rules", ".yaml");
        java.nio.file.Files.writeString(rules, """
                rules:
                  - name: api
                    limit: 5/1m
                    tiers: {by: 'header:X-Plan', policies: {free: 2/1m, '#vip': 100/1m}}
                """);
        try (FilterServer server = FilterServer.start(Map.of("rules", rules.toString(), "exclude", "/sluice-admin"))) {
            for (String[] tier : new String[][] {{"free", "2"}, {"#vip", "100"}}) {
                server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                        .queryParam("rule", "api").queryParam("key", "127.0.0.1").queryParam("tier", tier[0])
                        .get("/sluice-admin").then().statusCode(200).body("limit", equalTo(Integer.parseInt(tier[1])));
            }
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "api").queryParam("key", "127.0.0.1").queryParam("tier", "gold")
                    .get("/sluice-admin").then().statusCode(404).body("error", equalTo("no tier named gold in rule api"));
        } finally {
            java.nio.file.Files.deleteIfExists(rules);
        }
    }

    @Test
    void everyoneElseIsTurnedAway() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "2/1m", "exclude", "/sluice-admin"))) {
            server.client().queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").delete("/sluice-admin")
                    .then().statusCode(403).body(containsString("role sluice-admin"));
            server.client().header("X-Test-User", "mallory").header("X-Test-Role", "user")
                    .queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").get("/sluice-admin")
                    .then().statusCode(403);
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "nope").queryParam("key", "k").get("/sluice-admin").then().statusCode(404);
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-ip").get("/sluice-admin").then().statusCode(400);
        }
    }

    @Test
    void everyMethodChecksTheCallerFirstAndOnlyGetHeadAndDeleteAreServed() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "2/1m", "exclude", "/sluice-admin"))) {
            // HttpServlet's own TRACE echoed the request, Cookie and Authorization included, to anyone; OPTIONS too
            server.client().header("Cookie", "JSESSIONID=s3cr3t").header("Authorization", "Basic b3BzOnB3")
                    .request("TRACE", "/sluice-admin").then().statusCode(403).header("Cache-Control", "no-store")
                    .header("X-Content-Type-Options", "nosniff").body(not(containsString("s3cr3t")));
            server.client().request("OPTIONS", "/sluice-admin").then().statusCode(403);
            server.client().header("X-Test-User", "mallory").header("X-Test-Role", "user")
                    .request("TRACE", "/sluice-admin").then().statusCode(403);
            for (String method : new String[] {"POST", "PUT", "PATCH", "OPTIONS", "TRACE"}) {
                admin(server).contentType("application/x-www-form-urlencoded").body("rule=per-ip&key=127.0.0.1")
                        .request(method, "/sluice-admin").then().statusCode(405).header("Allow", "GET, HEAD, DELETE")
                        .header("Cache-Control", "no-store").contentType("application/json")
                        .body(not(containsString("127.0.0.1")));
            }
            admin(server).queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").head("/sluice-admin")
                    .then().statusCode(200).header("Cache-Control", "no-store").header("X-Content-Type-Options", "nosniff");
            admin(server).queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").delete("/sluice-admin")
                    .then().statusCode(204).header("Cache-Control", "no-store");
        }
    }

    @Test
    void inspectingAndResettingUnknownKeysTracksNone() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "2/1m", "exclude", "/sluice-admin"))) {
            for (int i = 0; i < 200; i++) {
                String key = i + "-" + "k".repeat(2000);
                admin(server).queryParam("rule", "per-ip").queryParam("key", key).get("/sluice-admin")
                        .then().statusCode(200).body("remaining", equalTo(2)).body(not(containsString("kkk")));
                admin(server).queryParam("rule", "per-ip").queryParam("value", key).delete("/sluice-admin")
                        .then().statusCode(204);
            }
            assertThat(((MemoryStore) server.door().store()).trackedKeys()).isZero();
        }
    }

    @Test
    void aResetOnOneNodeUnblocksOnEveryNodeTheirRememberedDenialsIncluded() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                FilterServer a = FilterServer.start(Map.of("limit", "2/1h", "exclude", "/sluice-admin",
                        "store", redis.url() + "?time=application&timeout=2s"));
                FilterServer b = FilterServer.start(Map.of("limit", "2/1h", "exclude", "/sluice-admin",
                        "store", redis.url() + "?time=application&timeout=2s"))) {
            b.client().get("/").then().statusCode(200);
            b.client().get("/").then().statusCode(200);
            b.client().get("/").then().statusCode(429);             // remembered by b until its retry time
            // b's channel delivers to b's engine first, then here: once heard, b has forgotten
            BlockingQueue<FleetMessage> heardByB = new LinkedBlockingQueue<>();
            b.door().store().fleet().listen(heardByB::add);
            admin(a).queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").delete("/sluice-admin")
                    .then().statusCode(204);
            admin(b).queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").get("/sluice-admin")
                    .then().statusCode(200).body("remaining", equalTo(2));    // the store is reset for every node
            a.client().get("/").then().statusCode(200);
            FleetMessage heard = heardByB.poll(5, TimeUnit.SECONDS);
            assertThat(heard).as("b heard of a's reset").isNotNull();
            assertThat(heard.kind()).isEqualTo(FleetMessage.Kind.RESET);
            b.client().get("/").then().statusCode(200);             // b unblocked by a's reset
            b.client().get("/").then().statusCode(429);             // and the limit holds again
        }
    }

    private static RequestSpecification admin(FilterServer server) {
        return server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin");
    }

    @Test
    void anUnreachableStoreIsA503NotA500() throws Exception {
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort();                   // nothing listens there once the socket is closed
        }
        try (FilterServer server = FilterServer.start(Map.of("limit", "2/1m", "exclude", "/sluice-admin",
                "store", "redis://127.0.0.1:" + closed))) {
            server.client().get("/").then().statusCode(200);        // the rule's failure mode: allow
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").get("/sluice-admin")
                    .then().statusCode(503).header("Retry-After", "1").body(containsString("store is unavailable"))
                    // the store's address and the client library's error are logged, not answered
                    .body(not(containsString(String.valueOf(closed)))).body(not(containsString("connect")));
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").delete("/sluice-admin")
                    .then().statusCode(503).body(not(containsString(String.valueOf(closed))));
        }
    }

    @Test
    void aStoreFailureThatQuotesTheKeyAskedAboutIsLoggedEscapedAndBounded() throws Exception {
        // an application's own store (produced through CDI, say) whose failures quote the key they were about
        Store quoting = new ForwardingStore(MemoryStore.builder().build()) {
            @Override
            public void reset(String rule, String key) {
                throw new StoreException("no shard answers for key " + key);
            }
        };
        String hostile = "203.0.113.9\r\nFORGED WARNING: admin logged in\u001b[2J" + "x".repeat(6_000);
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/app");
        context.addFilter(new FilterHolder(new FilterServer.IdentityFilter()), "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new AdminServlet()), "/sluice-admin");
        server.setHandler(context);
        try (FrontDoor door = FrontDoor.open(SluiceConfig.load(Parameters.of("sluice", Map.of("limit", "2/1m"), "test"),
                        SluiceConfig.files()), new ManualTimeSource(), quoting, List.of());
                LogCapture log = new LogCapture(AdminServlet.class.getName())) {
            context.setAttribute(RateLimitFilter.contextAttribute("sluice"), door);     // as the filter does
            server.start();
            given().baseUri("http://127.0.0.1").port(connector.getLocalPort()).basePath("/app")
                    .header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-ip").queryParam("key", hostile).delete("/sluice-admin")
                    .then().statusCode(503);

            assertThat(log.lines()).isNotEmpty();
            assertThat(log.unsafeLines("FORGED", 1_000)).as("forged, unbounded or with an escape sequence").isEmpty();
            assertThat(String.join("\n", log.lines())).contains("Sluice admin endpoint: the rate-limit store is"
                    + " unavailable: no shard answers for key 203.0.113.9\\r\\nFORGED WARNING: admin logged in\\u001b[2Jxxx",
                    "... (" + (25 + hostile.length()) + " characters)");
        } finally {
            server.stop();
        }
    }
}
