package io.sluice.filter;

import io.restassured.config.EncoderConfig;
import io.restassured.config.RestAssuredConfig;
import io.restassured.specification.RequestSpecification;
import java.nio.charset.StandardCharsets;

/** Requests to the admin endpoint, as an operator sends them. */
final class AdminRequests {

    private AdminRequests() {}

    /** @return a request of {@code user}, in role sluice-admin, to {@code server} */
    static RequestSpecification as(FilterServer server, String user) {
        return server.client().header("X-Test-User", user).header("X-Test-Role", "sluice-admin");
    }

    /** @return {@link #as} user {@code ops} */
    static RequestSpecification admin(FilterServer server) {
        return as(server, "ops");
    }

    /**
     * @return {@code request} with {@code yaml} as its body, {@code Content-Type: contentType} exactly as given (no
     *     charset added)
     */
    static RequestSpecification body(RequestSpecification request, String contentType, byte[] yaml) {
        return request.config(RestAssuredConfig.config().encoderConfig(EncoderConfig.encoderConfig()
                        .appendDefaultContentCharsetToContentTypeIfUndefined(false)))
                .contentType(contentType).body(yaml);
    }

    /** @return {@code request} with {@code yaml} as its body, {@code Content-Type: application/yaml} */
    static RequestSpecification yaml(RequestSpecification request, String yaml) {
        return body(request, "application/yaml", yaml.getBytes(StandardCharsets.UTF_8));
    }
}
