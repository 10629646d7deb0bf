package io.sluice.jaxrs;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * CDI with Weld, on Jersey, without Micrometer on the class path (failsafe execution {@code without-micrometer}): every
 * test of {@link CdiSuite} passes, so Sluice's beans and both front doors load no class of Micrometer.
 */
class WithoutMicrometerCdiIT extends CdiSuite {
    @Override
    JaxrsServer.Implementation implementation() {
        return new Jersey();
    }

    @Test
    void micrometerIsNotOnTheClassPath() {
        assertThatThrownBy(() -> Class.forName("io.micrometer.core.instrument.MeterRegistry"))
                .isInstanceOf(ClassNotFoundException.class);
    }
}
