package io.sluice.cdi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import java.lang.reflect.Proxy;
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
}
