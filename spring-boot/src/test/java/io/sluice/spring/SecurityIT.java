package io.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.config.Customizer.withDefaults;

import io.sluice.http.FrontDoor;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The starter under Spring Security, over real HTTP: the application's chain authenticates every request (HTTP
 * Basic); the endpoint's status is for whoever the chain lets in, its inspect and reset for role
 * {@code sluice-admin} only, the reset recorded with the operator's name; and the filter, after the chain, keys
 * {@code principal} rules by the user.
 */
@SpringBootTest(classes = {TestApplication.class, SecurityIT.Beans.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
                "spring.autoconfigure.exclude=", "sluice.limit=2/1h", "sluice.key=principal",
                "sluice.name=per-user", "sluice.exclude=/actuator/**"})
@DirtiesContext
class SecurityIT {

    private static final String AUTHORIZATION = "Authorization";
    private static final String OPS = basic("ops");
    private static final String ALICE = basic("alice");

    @LocalServerPort
    int port;
    @Autowired
    FrontDoor door;

    @Test
    void theFilterCountsEachUserAfterTheChain() {
        assertThat(Http.get(port, "/hello").statusCode()).as("the chain first").isEqualTo(401);
        assertThat(Http.get(port, "/hello", AUTHORIZATION, basic("bob")).statusCode()).isEqualTo(200);
        assertThat(Http.get(port, "/hello", AUTHORIZATION, basic("bob")).statusCode()).isEqualTo(200);
        assertThat(Http.get(port, "/hello", AUTHORIZATION, basic("bob")).statusCode()).isEqualTo(429);
        assertThat(Http.get(port, "/hello", AUTHORIZATION, basic("carol")).statusCode()).as("another user's count")
                .isEqualTo(200);
        HttpResponse<String> bob = Http.get(port, "/actuator/sluice/per-user/bob", AUTHORIZATION, OPS);
        assertThat(bob.statusCode()).isEqualTo(200);
        assertThat(bob.body()).contains("\"remaining\":0", "\"limit\":2");
    }

    @Test
    void inspectAndResetNeedTheRole() {
        assertThat(Http.get(port, "/hello", AUTHORIZATION, ALICE).statusCode()).isEqualTo(200);
        assertThat(Http.get(port, "/hello", AUTHORIZATION, ALICE).statusCode()).isEqualTo(200);
        assertThat(Http.get(port, "/hello", AUTHORIZATION, ALICE).statusCode()).isEqualTo(429);

        assertThat(Http.delete(port, "/actuator/sluice/per-user/alice").statusCode()).isEqualTo(401);
        assertThat(Http.get(port, "/actuator/sluice/per-user/alice").statusCode()).isEqualTo(401);
        HttpResponse<String> own = Http.delete(port, "/actuator/sluice/per-user/alice", AUTHORIZATION, ALICE);
        assertThat(own.statusCode()).as("a user lifting their own limit").isEqualTo(403);
        assertThat(own.body()).contains("role sluice-admin");
        assertThat(Http.get(port, "/actuator/sluice/per-user/alice", AUTHORIZATION, ALICE).statusCode())
                .isEqualTo(403);
        assertThat(Http.get(port, "/hello", AUTHORIZATION, ALICE).statusCode()).as("still limited").isEqualTo(429);

        assertThat(Http.get(port, "/actuator/sluice/per-user/alice", AUTHORIZATION, OPS).body())
                .contains("\"remaining\":0");
        assertThat(Http.delete(port, "/actuator/sluice/per-user/alice", AUTHORIZATION, OPS).statusCode())
                .isEqualTo(200);
        assertThat(Http.get(port, "/hello", AUTHORIZATION, ALICE).statusCode()).as("reset").isEqualTo(200);
        assertThat(door.admin().audit(10)).anySatisfy(entry -> {
            assertThat(entry.who()).isEqualTo("ops (actuator)");
            assertThat(entry.key()).isEqualTo("alice");
        });
        assertThat(Http.delete(port, "/actuator/sluice/no-such-rule/alice", AUTHORIZATION, OPS).statusCode())
                .isEqualTo(404);
        assertThat(Http.get(port, "/actuator/sluice/no-such-rule/alice", AUTHORIZATION, OPS).statusCode())
                .isEqualTo(404);
    }

    @Test
    void statusIsForWhoeverTheChainLetsIn() {
        assertThat(Http.get(port, "/actuator/sluice").statusCode()).isEqualTo(401);
        HttpResponse<String> status = Http.get(port, "/actuator/sluice", AUTHORIZATION, ALICE);
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.body()).contains("\"name\":\"per-user\"");
    }

    private static String basic(String user) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + user + "-secret")
                .getBytes(StandardCharsets.UTF_8));
    }

    /** The application's security (not annotated: no other test's component scan finds it). */
    static class Beans {

        /** @return every request authenticated, HTTP Basic, Actuator's writes without a CSRF token */
        @Bean
        SecurityFilterChain security(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                    .httpBasic(withDefaults())
                    .csrf(csrf -> csrf.ignoringRequestMatchers(EndpointRequest.toAnyEndpoint()))
                    .build();
        }

        /** @return an operator, and users */
        @Bean
        UserDetailsService users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("ops").password("{noop}ops-secret").roles("sluice-admin").build(),
                    User.withUsername("alice").password("{noop}alice-secret").roles("USER").build(),
                    User.withUsername("bob").password("{noop}bob-secret").roles("USER").build(),
                    User.withUsername("carol").password("{noop}carol-secret").roles("USER").build());
        }
    }
}
