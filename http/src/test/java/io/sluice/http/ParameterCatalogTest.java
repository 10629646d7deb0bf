package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * One configuration model: the catalogue names what {@link SluiceConfig} reads, its defaults are the ones applied, and
 * a value is parsed and refused alike whichever source it comes from.
 */
class ParameterCatalogTest {

    private static Parameters own(Map<String, String> own) {
        return Parameters.of("sluice", name -> null, name -> null, own, "init-param");
    }

    @Test
    void theConfigurationReadsExactlyTheCataloguesNames() {
        Set<String> asked = new LinkedHashSet<>();
        ParameterSource recording = ParameterSource.of("recording", property -> {
            asked.add(property.substring("sluice.".length()));
            return null;
        });
        SluiceConfig.load(own(Map.of("limit", "10/s")).withSource(recording), SluiceConfig.files());

        assertThat(asked).containsExactlyInAnyOrderElementsOf(ParameterCatalog.names());
        assertThat(SluiceConfig.NAMES).isEqualTo(ParameterCatalog.names());
    }

    @Test
    void theCataloguesDefaultsAreTheOnesApplied() {
        Map<String, String> defaults = new HashMap<>(Map.of("limit", "10/s"));
        for (ParameterCatalog.Entry e : ParameterCatalog.entries()) {
            if (e.defaultValue() != null) {
                defaults.put(e.name(), e.defaultValue());
            }
        }
        assertThat(defaults).as("defaults given").hasSizeGreaterThan(12);
        SluiceConfig implicit = SluiceConfig.load(own(Map.of("limit", "10/s")), SluiceConfig.files());
        SluiceConfig explicit = SluiceConfig.load(own(defaults), SluiceConfig.files());

        assertThat(settings(explicit)).isEqualTo(settings(implicit));
    }

    private static List<Object> settings(SluiceConfig c) {
        Rule r = c.limitRule();
        return List.of(r.name(), r.key().toString(), r.policy(), r.onStoreFailure(), r.onMissingKey(), c.store(),
                c.maxKeys(), c.nodeCount(), c.reloadIntervalMicros(), c.settingsIntervalMicros(),
                c.clientIp().toString(), c.exclude(), c.shadow(), c.responder().toString());
    }

    @Test
    void aBadValueIsRefusedWithOneTextWhateverItsSource() {
        for (String[] bad : new String[][] {{"max-keys", "0"}, {"limit", "100/1w"}, {"shadow", "maybe"},
                {"store", "ftp://cache"}, {"reload-interval", "soon"}}) {
            String name = bad[0];
            String value = bad[1];
            String property = "sluice." + name;
            String variable = "SLUICE_" + name.toUpperCase().replace('-', '_');
            Map<String, Parameters> bySource = Map.of(
                    property + " (system property)", Parameters.of("sluice", Map.of(property, value)::get,
                            v -> null, Map.of(), "init-param"),
                    variable + " (environment variable)", Parameters.of("sluice", p -> null,
                            Map.of(variable, value)::get, Map.of(), "init-param"),
                    property + " (MicroProfile Config)", own(Map.of()).withSource(
                            ParameterSource.of("MicroProfile Config", Map.of(property, value)::get)),
                    property + " (Spring Environment)", own(Map.of()).withConfig(Map.of(property, value)::get,
                            "Spring Environment"),
                    name + " (init-param)", own(Map.of(name, value)),
                    property + " (JAX-RS property)", Parameters.of("sluice", p -> null, v -> null,
                            Map.of(name, value), "JAX-RS property").ownNamedWithPrefix());
            List<String> texts = new ArrayList<>();
            bySource.forEach((source, parameters) -> {
                ConfigException e = catchThrowableOfType(ConfigException.class,
                        () -> SluiceConfig.loadWithoutRules(parameters, SluiceConfig.files()));
                assertThat(e).as(source).isNotNull();
                assertThat(e.getMessage()).as("names the source").startsWith(source + ": ").contains(value);
                texts.add(e.getMessage().substring(source.length()));
            });
            assertThat(texts).as(name + "=" + value).hasSize(6).allMatch(t -> t.equals(texts.get(0)));
        }
    }

    @Test
    void everyParameterIsDescribedAndReadByAFrontDoor() {
        for (ParameterCatalog.Entry e : ParameterCatalog.entries()) {
            assertThat(e.description()).as(e.name()).isNotBlank().doesNotContain("\n");
            assertThat(e.servletFilter() || e.jaxrs()).as(e.name()).isTrue();
            assertThat(ParameterCatalog.find(e.name())).contains(e);
        }
        assertThat(ParameterCatalog.find("config-prefix").orElseThrow().jaxrs()).isFalse();
        assertThat(ParameterCatalog.find("limt")).isEmpty();
    }
}
