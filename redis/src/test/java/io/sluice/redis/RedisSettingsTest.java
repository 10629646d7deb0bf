package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.store.KeyOverride;
import io.sluice.core.store.SharedSettings;
import org.junit.jupiter.api.Test;

/** How overrides are written in Redis's hash, and the keys of the settings: no server needed. */
class RedisSettingsTest {

    @Test
    void anOverrideReadsBackAsItWasWritten() {
        KeyOverride o = new KeyOverride("api", "#AbC-123_xyz0987q", "10000/1h (gcra)", 1_700_000_000_000L,
                "alice|ops\0on call", 1_690_000_000_000L);
        String value = RedisSettings.encode(o);
        assertThat(value).startsWith("1700000000000|1690000000000|10000/1h (gcra)\0");
        assertThat(RedisSettings.decode("api", "#AbC-123_xyz0987q", value)).isEqualTo(o);
    }

    @Test
    void aValueThatIsNoOverrideIsLeftOut() {
        assertThat(RedisSettings.decode("api", "k", "garbage")).isNull();
        assertThat(RedisSettings.decode("api", "k", "1|2|5/1h")).isNull();
    }

    @Test
    void theAuditTrailShowsAnOverrideAsLocalSettingsDoes() {
        assertThat(RedisSettings.describe(new KeyOverride("api", "k", "5/1h", 0, "", 1))).isEqualTo("5/1h");
        assertThat(RedisSettings.describe(new KeyOverride("api", "k", "5/1h", 9, "", 1))).isEqualTo("5/1h until 9");
    }

    @Test
    void everyKeyOfTheSettingsSharesOneHashTag() {
        assertThat(RedisSettings.keys("orders")).containsExactly("{orders}:_settings:version",
                "{orders}:_settings:doc", "{orders}:_settings:overrides", "{orders}:_settings:audit");
    }

    @Test
    void aDocumentLongerThan64KiBOfUtf8IsRefused() {
        RedisSettings.checkSize("é".repeat(SharedSettings.MAX_DOCUMENT_BYTES / 2));
        assertThatThrownBy(() -> RedisSettings.checkSize("é".repeat(SharedSettings.MAX_DOCUMENT_BYTES / 2 + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("65536 bytes");
    }
}
