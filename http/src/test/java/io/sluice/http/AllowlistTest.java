package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.Decision;
import io.sluice.core.config.ConfigException;
import io.sluice.core.request.RequestView;
import io.sluice.core.testing.ManualTimeSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The allowlist by role, and given as parameters as well as in the rules file. */
class AllowlistTest {

    private final ManualTimeSource time = new ManualTimeSource();

    private FrontDoor door(Map<String, String> parameters) {
        return FrontDoor.open(SluiceConfig.load(Parameters.of("sluice", k -> null, k -> null, parameters, "init-param"),
                SluiceConfig.files()), time);
    }

    /** @return how many of 5 requests pass a rule of 2 a minute */
    private static int passed(FrontDoor door, RequestView request) {
        int ok = 0;
        for (int i = 0; i < 5; i++) {
            Decision d = door.check(request);
            ok += d.allowed() ? 1 : 0;
        }
        return ok;
    }

    @Test
    void aUserWithAnAllowlistedRoleIsNeverLimited() {
        FrontDoor door = door(Map.of("limit", "2/1m", "allowlist-roles", "ops, monitoring"));
        RequestView ops = RequestView.builder("GET", "/").remoteAddress("203.0.113.9").principal("ann").roles("ops")
                .build();
        RequestView user = RequestView.builder("GET", "/").remoteAddress("203.0.113.10").principal("bob").roles("user")
                .build();
        RequestView claims = RequestView.builder("GET", "/").remoteAddress("203.0.113.11").roles("ops").build();
        assertThat(passed(door, ops)).isEqualTo(5);
        assertThat(door.check(ops).outcomes()).as("no rule counted it").isEmpty();
        assertThat(passed(door, user)).isEqualTo(2);
        assertThat(passed(door, claims)).as("a role without an authenticated user counts for nothing").isEqualTo(2);
    }

    @Test
    void addressesAndKeysAsParametersJoinTheRulesFiles(@TempDir Path dir) throws IOException {
        Path rules = Files.writeString(dir.resolve("rules.yaml"), """
                allowlist:
                  addresses: [10.0.0.0/8]
                  roles: [admin]
                rules:
                  - name: api
                    limit: 2/1m
                    key: header:X-Api-Key
                """);
        FrontDoor door = door(Map.of("rules", rules.toString(), "allowlist-addresses", "192.0.2.0/24 198.51.100.7",
                "allowlist-keys", "monitoring-key"));
        assertThat(door.rules().allowlist().roles()).containsExactly("admin");
        assertThat(passed(door, RequestView.builder("GET", "/").remoteAddress("10.1.2.3").header("X-Api-Key", "a")
                .build())).as("the file's block").isEqualTo(5);
        assertThat(passed(door, RequestView.builder("GET", "/").remoteAddress("192.0.2.50").header("X-Api-Key", "b")
                .build())).as("the parameter's block").isEqualTo(5);
        assertThat(passed(door, RequestView.builder("GET", "/").remoteAddress("203.0.113.1")
                .header("X-Api-Key", "monitoring-key").build())).as("the parameter's key").isEqualTo(5);
        assertThat(passed(door, RequestView.builder("GET", "/").remoteAddress("203.0.113.1").principal("root")
                .roles("admin").header("X-Api-Key", "c").build())).as("the file's role").isEqualTo(5);
        assertThat(passed(door, RequestView.builder("GET", "/").remoteAddress("203.0.113.1").header("X-Api-Key", "d")
                .build())).isEqualTo(2);
    }

    @Test
    void aBadAddressFailsStartUpNamingTheParameter() {
        assertThatThrownBy(() -> door(Map.of("limit", "2/1m", "allowlist-addresses", "10.0.0.0/99")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("allowlist-addresses")
                .hasMessageContaining("10.0.0.0/99");
    }

    @Test
    void aRoleThatMeansEveryUserIsRefused() {
        assertThatThrownBy(() -> door(Map.of("limit", "2/1m", "allowlist-roles", "ops, **")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("allowlist-roles")
                .hasMessageContaining("any authenticated user");
    }

    @Test
    void aBlankRoleInTheRulesFileIsRefused(@TempDir Path dir) throws IOException {
        Path rules = Files.writeString(dir.resolve("rules.yaml"), """
                allowlist:
                  roles: [" "]
                rules:
                  - name: api
                    limit: 2/1m
                """);
        assertThatThrownBy(() -> door(Map.of("rules", rules.toString()))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("allowlist.roles").hasMessageContaining("not a blank one");
    }
}
