package io.sluice.jaxrs;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.time.TimeSource;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

class JaxrsFrontTest {

    @Test
    void configPrefixIsTheServletFiltersOnlyAndNotSilentlyIgnored() {
        ResourceConfig configuration = new ResourceConfig().property("sluice.config-prefix", "api");
        assertThatThrownBy(() -> JaxrsFront.open(null, configuration, TimeSource.system()))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("sluice.config-prefix (JAX-RS property): the JAX-RS filter always reads sluice.*");
    }

    @Test
    void errorsNameAJaxrsPropertyAsItIsWritten() {
        ResourceConfig configuration = new ResourceConfig().property("sluice.limit", "lots");
        assertThatThrownBy(() -> JaxrsFront.open(null, configuration, TimeSource.system()))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("sluice.limit (JAX-RS property): ");
    }
}
