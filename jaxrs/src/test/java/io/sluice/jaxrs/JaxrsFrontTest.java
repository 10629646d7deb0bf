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

    static class V1 {
        @RateLimit("1/1h")
        static class Users {
            void list() {}

            void get() {}
        }
    }

    static class V2 {
        @RateLimit("1/1h")
        static class Users {
            void list() {}
        }
    }

    @Test
    void twoClassesOfOneSimpleNameGetNoCounterInCommonUnasked() throws Exception {
        JaxrsFront front = JaxrsFront.open(null, new ResourceConfig(), TimeSource.system());
        try {
            front.checkSharedNames(MethodRules.of(V1.Users.class, V1.Users.class.getDeclaredMethod("list"),
                    front.door().clientIp(), java.util.Map.of()));
            front.checkSharedNames(MethodRules.of(V1.Users.class, V1.Users.class.getDeclaredMethod("get"),
                    front.door().clientIp(), java.util.Map.of()));           // one class, one counter: as meant
            assertThatThrownBy(() -> front.checkSharedNames(MethodRules.of(V2.Users.class,
                    V2.Users.class.getDeclaredMethod("list"), front.door().clientIp(), java.util.Map.of())))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("@RateLimit on io.sluice.jaxrs.JaxrsFrontTest$V2$Users (Users).name: "
                            + "expected a name: the default one, \"Users\", is already that of the annotation on "
                            + "io.sluice.jaxrs.JaxrsFrontTest$V1$Users");
        } finally {
            front.close();
        }
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
