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

    static class SharedName {
        @RateLimit(name = "shared", value = "2/1h", algorithm = "fixed-window")
        void windowed() {}

        @RateLimit(name = "shared", value = "5/1h")
        void gcra() {}

        @RateLimit(name = "shared", value = "9/1h", algorithm = "fixed-window")
        void windowedToo() {}
    }

    @Test
    void oneAnnotationNameWithTwoAlgorithmsStopsStartUp() throws Exception {
        JaxrsFront front = JaxrsFront.open(null, new ResourceConfig(), TimeSource.system());
        try {
            java.util.function.Function<String, MethodRules> rules = name -> {
                try {
                    return MethodRules.of(SharedName.class, SharedName.class.getDeclaredMethod(name),
                            front.door().clientIp(), java.util.Map.of());
                } catch (NoSuchMethodException e) {
                    throw new AssertionError(e);
                }
            };
            front.checkSharedNames(rules.apply("windowed"));
            front.checkSharedNames(rules.apply("windowedToo"));     // another limit, one algorithm: allowed
            assertThatThrownBy(() -> front.checkSharedNames(rules.apply("gcra")))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("SharedName.gcra (shared).algorithm")
                    .hasMessageContaining("expected fixed-window, the algorithm of the annotation of the same name on ")
                    .hasMessageContaining("SharedName.windowed");
        } finally {
            front.close();
        }
    }
}
