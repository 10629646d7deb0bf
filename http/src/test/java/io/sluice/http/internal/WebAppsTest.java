package io.sluice.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.http.RulesSource;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class WebAppsTest {

    @Test
    void theWebApplicationIsFoundByTheContextClassLoaderOrOneOfItsParents() throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        try (URLClassLoader war = new URLClassLoader(new URL[0], before);
                URLClassLoader inside = new URLClassLoader(new URL[0], war)) {
            Function<String, RulesSource> rules = value -> RulesSource.file(java.nio.file.Path.of("/war" + value));
            WebApps.register(war, rules);
            try {
                thread.setContextClassLoader(inside);
                assertThat(WebApps.rulesSources()).as("a loader below the WAR's").isSameAs(rules);
                thread.setContextClassLoader(before);
                assertThat(WebApps.rulesSources().apply("/WEB-INF/r.yaml").name()).as("outside it: file paths")
                        .isEqualTo("/WEB-INF/r.yaml");
                WebApps.remove(war, value -> null);
                thread.setContextClassLoader(war);
                assertThat(WebApps.rulesSources()).as("removed only by the one that registered it").isSameAs(rules);
            } finally {
                WebApps.remove(war, rules);
            }
            assertThat(WebApps.rulesSources().apply("/WEB-INF/r.yaml").name()).isEqualTo("/WEB-INF/r.yaml");
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    @Test
    void twoWebApplicationsOnOneClassLoaderGetNeithersWar() throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        try (URLClassLoader shared = new URLClassLoader(new URL[0], before)) {
            Function<String, RulesSource> first = value -> RulesSource.file(java.nio.file.Path.of("/first" + value));
            Function<String, RulesSource> second = value -> RulesSource.file(java.nio.file.Path.of("/second" + value));
            WebApps.register(shared, first);
            WebApps.register(shared, first);
            thread.setContextClassLoader(shared);
            assertThat(WebApps.rulesSources()).as("registering the same again changes nothing").isSameAs(first);
            WebApps.register(shared, second);
            assertThat(WebApps.rulesSources().apply("/WEB-INF/r.yaml").name()).isEqualTo("/WEB-INF/r.yaml");
            WebApps.remove(shared, first);
            assertThat(WebApps.rulesSources().apply("/WEB-INF/r.yaml").name()).as("nor when one of them stops")
                    .isEqualTo("/WEB-INF/r.yaml");
        } finally {
            thread.setContextClassLoader(before);
        }
    }
}
