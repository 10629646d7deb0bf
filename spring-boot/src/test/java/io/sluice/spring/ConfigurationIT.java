package io.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Start-up with the {@code sluice.*} properties: an invalid or unknown one stops the application naming the property,
 * where it came from and its value; relaxed names and profiles apply as to any Spring Boot property.
 */
class ConfigurationIT {

    @Test
    void anInvalidLimitStopsStartUpNamingIt() {
        assertThatThrownBy(() -> start("sluice.limit=lots"))
                .rootCause().hasMessageContaining("sluice.limit (Spring Environment)").hasMessageContaining("\"lots\"");
    }

    @Test
    void anUnknownPropertyStopsStartUpNamingIt() {
        assertThatThrownBy(() -> start("sluice.limit=3/1m", "sluice.limt=4/1m"))
                .rootCause().hasMessageContaining("sluice.limt").hasMessageContaining("unknown parameter");
    }

    @Test
    void anInvalidFilterOrderStopsStartUpNamingIt() {
        assertThatThrownBy(() -> start("sluice.limit=3/1m", "sluice.filter-order=first"))
                .rootCause().hasMessageContaining("sluice.filter-order (Spring Environment)")
                .hasMessageContaining("\"first\"");
    }

    @Test
    void anInvalidReadinessPolicyStopsStartUpNamingIt() {
        assertThatThrownBy(() -> start("sluice.limit=3/1m", "sluice.readiness-on-store-failure=sometimes"))
                .rootCause().hasMessageContaining("sluice.readiness-on-store-failure (Spring Environment)")
                .hasMessageContaining("\"sometimes\"");
    }

    /** {@code isUserInRole("**")} is true for any authenticated user of a servlet container. */
    @Test
    void anAdminRoleOfEveryoneStopsStartUpNamingIt() {
        assertThatThrownBy(() -> start("sluice.limit=3/1m", "sluice.admin-role=**"))
                .rootCause().hasMessageContaining("sluice.admin-role (Spring Environment)")
                .hasMessageContaining("\"**\"");
    }

    @Test
    void aRulesFileOnTheClassPathApplies() {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(TestApplication.class)
                .properties("server.port=0", "sluice.rules=classpath:sluice-rules.yml").run()) {
            int port = ((WebServerApplicationContext) app).getWebServer().getPort();
            assertThat(Http.get(port, "/hello").statusCode()).isEqualTo(200);
            assertThat(Http.get(port, "/hello").statusCode()).as("the file's rule").isEqualTo(429);
        }
    }

    @Test
    void aMissingRulesFileStopsStartUpNamingIt() {
        assertThatThrownBy(() -> start("sluice.rules=classpath:no-such-rules.yml"))
                .rootCause().hasMessageContaining("sluice.rules (Spring Environment)")
                .hasMessageContaining("no-such-rules.yml");
    }

    /**
     * application-relaxed.yml writes {@code sluice.trustedProxies} and {@code sluice.clientIpHeader}: read, each
     * forwarded client has a limit of its own; ignored, both would be 127.0.0.1 and share one.
     */
    @Test
    void aProfileAndRelaxedNamesApply() {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(TestApplication.class)
                .profiles("relaxed").properties("server.port=0").run()) {
            int port = ((WebServerApplicationContext) app).getWebServer().getPort();
            assertThat(Http.get(port, "/hello", "X-Forwarded-For", "203.0.113.1").statusCode()).isEqualTo(200);
            assertThat(Http.get(port, "/hello", "X-Forwarded-For", "203.0.113.1").statusCode())
                    .as("the profile's limit").isEqualTo(429);
            assertThat(Http.get(port, "/hello", "X-Forwarded-For", "203.0.113.2").statusCode())
                    .as("another client").isEqualTo(200);
        }
    }

    private static void start(String... properties) {
        String[] all = new String[properties.length + 1];
        System.arraycopy(properties, 0, all, 1, properties.length);
        all[0] = "server.port=0";
        new SpringApplicationBuilder(TestApplication.class).properties(all).run().close();
    }
}
