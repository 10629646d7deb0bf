package io.sluice.examples.api;

import io.sluice.core.Engine;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The programmatic API: limiting the calls this application makes to a third-party API, outside any HTTP request.
 * The partner allows each account 10 geocoding calls per second; the client asks the engine before each call and,
 * when the quota is used up, answers with the wait instead of calling (and being refused, or billed).
 *
 * <pre>{@code
 * Engine engine = Engine.builder().build();                     // memory; .store(redis) to share across nodes
 * GeocoderClient geocoder = new GeocoderClient(engine, partner::geocode);
 * Answer a = geocoder.geocode("acct-42", "Main St 1");
 * }</pre>
 */
public final class GeocoderClient {

    /** The partner's quota: 10 calls per second per account. */
    static final Policy PARTNER_QUOTA = Policy.parse("10/1s");

    private final Engine engine;
    private final UnaryOperator<String> partner;

    /**
     * @param engine decides; one engine (and store) for all the limits of the application
     * @param partner the real call to the third-party API
     */
    public GeocoderClient(Engine engine, UnaryOperator<String> partner) {
        this.engine = engine;
        this.partner = partner;
    }

    /**
     * The partner's answer, or the wait before the account may call again.
     *
     * @param result the partner's answer, when called
     * @param retryAfter how long to wait, when the quota is used up
     */
    public record Answer(Optional<String> result, Optional<Duration> retryAfter) {}

    /** Calls the partner for {@code account} when its quota allows, else says how long to wait. */
    public Answer geocode(String account, String address) {
        Outcome outcome = engine.tryAcquire("geocoder", account, PARTNER_QUOTA, 1);
        if (!outcome.allowed()) {
            return new Answer(Optional.empty(), Optional.of(Duration.of(outcome.retryAfterMicros(), ChronoUnit.MICROS)));
        }
        return new Answer(Optional.of(partner.apply(address)), Optional.empty());
    }
}
