package io.sluice.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.time.TimeSource;
import io.sluice.jaxrs.AnnotatedRules;
import io.sluice.jaxrs.RateLimit;
import io.sluice.http.Parameters;
import io.sluice.http.spi.Integrations;
import java.util.List;
import java.util.Map;
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

    @Test
    void aPropertyDerivedFromElsewhereIsNamedByItsSource() {
        ResourceConfig configuration = new ResourceConfig().property("sluice.limit", "5/1m")
                .property("sluice.store", new Parameters.Sourced("memory", "APP_STORE (environment variable)"));
        assertThat(JaxrsFront.config(configuration, Map.of(), Integrations.of(List.of())).description())
                .contains("store = memory (from APP_STORE (environment variable))");
        assertThat(JaxrsFront.config(new ResourceConfig().property("sluice.limit", "5/1m")
                .property("sluice.store", "memory"), Map.of(), Integrations.of(List.of())).description())
                .contains("store = memory (from sluice.store (JAX-RS property))");
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
            front.checkSharedNames(AnnotatedRules.of(V1.Users.class, V1.Users.class.getDeclaredMethod("list"),
                    front.door().clientIp(), java.util.Map.of()));
            front.checkSharedNames(AnnotatedRules.of(V1.Users.class, V1.Users.class.getDeclaredMethod("get"),
                    front.door().clientIp(), java.util.Map.of()));           // one class, one counter: as meant
            assertThatThrownBy(() -> front.checkSharedNames(AnnotatedRules.of(V2.Users.class,
                    V2.Users.class.getDeclaredMethod("list"), front.door().clientIp(), java.util.Map.of())))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("@RateLimit on io.sluice.jaxrs.internal.JaxrsFrontTest$V2$Users (Users).name: "
                            + "expected a name: the default one, \"Users\", is already that of the annotation on "
                            + "io.sluice.jaxrs.internal.JaxrsFrontTest$V1$Users");
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
                    return AnnotatedRules.of(SharedName.class, SharedName.class.getDeclaredMethod(name),
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

    private static void rewrite(java.nio.file.Path file, String yaml) throws java.io.IOException {
        java.nio.file.attribute.FileTime before = java.nio.file.Files.getLastModifiedTime(file);
        java.nio.file.Files.writeString(file, yaml);
        java.nio.file.Files.setLastModifiedTime(file,
                java.nio.file.attribute.FileTime.fromMillis(before.toMillis() + 3_600_000));
    }

    private static MethodRules windowed(JaxrsFront front) throws NoSuchMethodException {
        return AnnotatedRules.of(SharedName.class, SharedName.class.getDeclaredMethod("windowed"),
                front.door().clientIp(), java.util.Map.of());
    }

    /**
     * A shared rules document passes the checks of a reloaded rules file: a rule named like an annotation must keep the
     * annotation's algorithm, and is refused where it is written otherwise (nothing written, the rules in force stay).
     */
    @Test
    void aSharedDocumentsRuleNamedLikeAnAnnotationOfAnotherAlgorithmIsRefusedWhereWritten() throws Exception {
        JaxrsFront front = JaxrsFront.open(null, new ResourceConfig(), new ManualTimeSource());
        try {
            front.checkSharedNames(windowed(front));                                 // "shared", fixed-window
            assertThatThrownBy(() -> front.door().admin().replaceSharedRules(
                    "rules: [{name: shared, paths: [/x], limit: 1/1h}]", -1, "alice"))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("expected fixed-window, the algorithm of the @RateLimit annotation");
            org.assertj.core.api.Assertions.assertThat(front.door().admin().sharedRules().present()).isFalse();
            org.assertj.core.api.Assertions.assertThat(front.door().rules().names()).isEmpty();

            front.door().admin().replaceSharedRules(
                    "rules: [{name: shared, paths: [/x], limit: 1/1h, algorithm: fixed-window}]", -1, "alice");
            org.assertj.core.api.Assertions.assertThat(front.door().rules().names()).containsExactly("shared");
        } finally {
            front.close();
        }
    }

    @Test
    void aClosedApplicationNoLongerChecksTheReloadsOfASharedFrontDoor(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path dir) throws Exception {
        java.nio.file.Path file = dir.resolve("rules.yaml");
        java.nio.file.Files.writeString(file, "rules: [{name: other, paths: [/x], limit: 1/1h}]");
        ManualTimeSource clock = new ManualTimeSource();
        JaxrsFront owner = JaxrsFront.open(null, new ResourceConfig().property("sluice.rules", file.toString()), clock);
        try {
            JaxrsFront app = new JaxrsFront(owner.door(), false, java.util.Map.of(), name -> null);   // another application, shared door
            app.checkSharedNames(windowed(app));                                      // "shared", fixed-window
            rewrite(file, "rules: [{name: shared, paths: [/x], limit: 1/1h}]");       // GCRA
            clock.advance(java.time.Duration.ofSeconds(11));
            org.assertj.core.api.Assertions.assertThat(owner.door().rules().names()).containsExactly("other");

            app.close();
            rewrite(file, "rules: [{name: shared, paths: [/x], limit: 2/1h}]");
            clock.advance(java.time.Duration.ofSeconds(11));
            org.assertj.core.api.Assertions.assertThat(owner.door().rules().names()).as("no check left behind")
                    .containsExactly("shared");
        } finally {
            owner.close();
        }
    }

    @Test
    void anAnnotationRecordedWhileAReloadIsBetweenItsCheckAndItsPublicationIsCheckedAgainstTheReloadedRules(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path file = dir.resolve("rules.yaml");
        java.nio.file.Files.writeString(file, "rules: [{name: other, paths: [/x], limit: 1/1h}]");
        ManualTimeSource clock = new ManualTimeSource();
        JaxrsFront front = JaxrsFront.open(null, new ResourceConfig().property("sluice.rules", file.toString()), clock);
        java.util.concurrent.CountDownLatch checked = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        front.door().checkReloads(next -> {           // after the JAX-RS check: holds the reload before it publishes
            checked.countDown();
            try {
                release.await(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            rewrite(file, "rules: [{name: shared, paths: [/x], limit: 1/1h}]");       // GCRA; no annotation yet
            clock.advance(java.time.Duration.ofSeconds(11));
            Thread reload = new Thread(() -> front.door().rules());
            reload.start();
            org.assertj.core.api.Assertions.assertThat(checked.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            java.util.concurrent.CompletableFuture<Void> annotation = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    front.checkSharedNames(windowed(front));                          // "shared", fixed-window
                } catch (NoSuchMethodException e) {
                    throw new AssertionError(e);
                }
            });
            try {
                annotation.get(500, java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException waitsForTheReload) {
                // as it should: it reads the rules once the reload is over
            } catch (java.util.concurrent.ExecutionException refused) {
                // also acceptable, checked below
            }
            release.countDown();
            reload.join(10_000);
            org.assertj.core.api.Assertions.assertThat(front.door().rules().names()).containsExactly("shared");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> annotation.get(10, java.util.concurrent.TimeUnit.SECONDS))
                    .as("the annotation is checked against the rules the reload published")
                    .hasCauseInstanceOf(ConfigException.class);
        } finally {
            release.countDown();
            front.close();
        }
    }
}
