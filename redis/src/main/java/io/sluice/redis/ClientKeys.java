package io.sluice.redis;

import io.sluice.core.config.ConfigException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How the client part of a Redis key (an IP, an API key, a user name) is written: by default as a keyed hash,
 * {@code #} and 16 characters (base64url: 96 bits) of its HMAC-SHA-256 under the fleet's key secret (as short as a
 * collision between two clients stays out of reach, so that the common algorithms' keys stay within 80 bytes of Redis
 * memory), so that Redis holds no
 * client identifier in clear; with raw keys (debugging) as it is when it is short and safe, else as its SHA-256.
 *
 * <p>The secret is {@link RedisStore.Builder#keySecret}, else system property {@value #SECRET_PROPERTY}, else
 * environment variable {@value #SECRET_VARIABLE}, else one derived from the key prefix. Every node of a fleet must use
 * the same. With a secret of its own kept out of Redis, a dump of Redis gives nothing back; with the derived one,
 * which anyone who sees the prefix can derive too, a key is pseudonymous only: a small space such as IPv4's can be
 * searched.
 */
final class ClientKeys {

    private static final System.Logger LOG = System.getLogger(RedisStore.class.getName());
    static final String SECRET_PROPERTY = "sluice.key-secret";
    static final String SECRET_VARIABLE = "SLUICE_KEY_SECRET";
    /** The shortest secret taken: {@value} characters. */
    static final int MIN_SECRET = 16;
    private final SecretKeySpec secret;
    private final String source;
    private final ThreadLocal<Mac> macs;
    private final KeyMemo recent;

    private ClientKeys(SecretKeySpec secret, String source) {
        this.secret = secret;
        this.source = source;
        this.macs = secret == null ? null : ThreadLocal.withInitial(this::mac);
        this.recent = new KeyMemo(secret == null ? RedisKeys::safe : this::hmac);
    }

    /** Keys as they are (short and safe), else their SHA-256: readable in Redis, for debugging. */
    static ClientKeys raw() {
        return new ClientKeys(null, "raw");
    }

    /**
     * @param given the builder's secret, or null to look for one in the system properties and the environment
     * @param prefix the key prefix, from which a secret is derived when none is given anywhere
     * @throws ConfigException when a secret given is shorter than {@value #MIN_SECRET} characters
     */
    static ClientKeys hashed(String given, String prefix) {
        String source = "keySecret(...)";
        String secret = given;
        if (secret == null && System.getProperty(SECRET_PROPERTY) != null) {
            secret = System.getProperty(SECRET_PROPERTY);
            source = "system property " + SECRET_PROPERTY;
        } else if (secret == null && System.getenv(SECRET_VARIABLE) != null) {
            secret = System.getenv(SECRET_VARIABLE);
            source = "environment variable " + SECRET_VARIABLE;
        }
        if (secret == null) {
            LOG.log(Level.INFO, "Sluice writes client keys in Redis as keyed hashes, the secret derived from the key"
                    + " prefix: pseudonymous only; set " + SECRET_VARIABLE + " (the same on every node) to make them"
                    + " unrecoverable from a dump");
            return new ClientKeys(key("sluice-key-prefix:" + prefix), "hashed, secret derived from the prefix");
        }
        String stripped = checked(source, secret);
        LOG.log(Level.INFO, "Sluice writes client keys in Redis as keyed hashes, the secret from " + source);
        return new ClientKeys(key(stripped), "hashed, secret from " + source);
    }

    /**
     * @param source where the secret was given, as errors name it
     * @return the secret without surrounding whitespace (a secret file's trailing newline must not split the fleet)
     * @throws ConfigException when it is null or shorter than {@value #MIN_SECRET} characters; never quoting it
     */
    static String checked(String source, String secret) {
        String stripped = secret == null ? "" : secret.strip();
        if (stripped.length() < MIN_SECRET) {
            throw new ConfigException(source, secret == null ? null : "(" + stripped.length() + " characters, not"
                    + " shown)", "expected a key secret of at least " + MIN_SECRET + " characters, the same on every"
                    + " node");
        }
        return stripped;
    }

    private static SecretKeySpec key(String secret) {
        return new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    }

    private Mac mac() {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(secret);
            return m;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java platform", e);
        }
    }

    /** @return the client part as Redis holds it */
    String apply(String key) {
        return recent.get(key).written;
    }

    /** @return {@link #apply} in UTF-8 (the array is shared: not to be changed) */
    byte[] bytes(String key) {
        return recent.get(key).bytes;
    }

    private String hmac(String key) {
        return RedisKeys.tagged(macs.get().doFinal(key.getBytes(StandardCharsets.UTF_8)), 16);
    }

    /** @return how keys are written, for logs: raw, or hashed and where the secret came from (never the secret) */
    @Override
    public String toString() {
        return source;
    }
}
