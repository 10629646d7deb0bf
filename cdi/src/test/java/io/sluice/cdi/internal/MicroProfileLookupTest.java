package io.sluice.cdi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.http.ParameterSource;
import io.sluice.http.Parameters;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

class MicroProfileLookupTest {

    /** A Config whose getOptionalValue answers as {@code answer} does for the property name. */
    private static Config config(java.util.function.Function<String, Optional<String>> answer) {
        return (Config) Proxy.newProxyInstance(Config.class.getClassLoader(), new Class<?>[] {Config.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getOptionalValue")) {
                        return answer.apply((String) args[0]);
                    }
                    if (method.getName().equals("getPropertyNames")) {
                        return List.of("sluice.limt", "sluice.limit", "server.port");
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void aValueThatMicroProfileConfigCannotGiveIsAConfigurationError() {
        Config expressions = config(name -> {
            throw new NoSuchElementException("SRCFG00011: Could not expand value missing in property " + name);
        });
        assertThatThrownBy(() -> MicroProfileLookup.of(expressions).apply("sluice.limit"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("sluice.limit (MicroProfile Config): cannot be read: SRCFG00011: Could not expand value"
                        + " missing in property sluice.limit");
        assertThat(MicroProfileLookup.of(config(name -> Optional.of("10/s"))).apply("sluice.limit")).isEqualTo("10/s");
        assertThat(MicroProfileLookup.of(config(name -> Optional.empty())).apply("sluice.limit")).isNull();
    }

    @Test
    void itsPropertyNamesServeTheWarningsOfNearMisses() {
        Config config = config(name -> Optional.empty());
        assertThat(MicroProfileLookup.names(config)).containsExactlyInAnyOrder("sluice.limt", "sluice.limit",
                "server.port");
        Parameters p = Parameters.of("sluice", name -> null, name -> null, Map.of(), "CDI")
                .withSource(ParameterSource.of(MicroProfileConfig.LABEL, MicroProfileLookup.of(config),
                        () -> MicroProfileLookup.names(config)));
        assertThat(p.misspeltOverrides(List.of("limit")))
                .containsExactly("sluice.limt (MicroProfile Config) is not a parameter; did you mean sluice.limit?");
    }
}
