package io.sluice.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.ServletContainerInitializer;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class WebAppInitializerTest {

    @Test
    void containersFindTheInitializerInTheJar() {
        assertThat(ServiceLoader.load(ServletContainerInitializer.class).stream().map(ServiceLoader.Provider::type))
                .contains(WebAppInitializer.class);
    }
}
