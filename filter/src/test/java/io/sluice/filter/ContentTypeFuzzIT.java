package io.sluice.filter;

import static io.sluice.filter.AdminRequests.admin;
import static io.sluice.filter.AdminRequests.body;
import static org.assertj.core.api.Assertions.assertThat;

import io.restassured.response.Response;
import io.sluice.core.Engine;
import io.sluice.core.policy.Policy;
import io.sluice.core.testing.RedisProcess;
import io.sluice.redis.AdmissionQueue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Hostile content types over HTTP, to enqueue mode and to the admin endpoint's rules: never a 5xx, and every refusal a
 * short JSON answer that quotes none of it unbounded. {@code ContentTypeTest} (in {@code sluice-http}) fuzzes the
 * routine itself with 100,000 cases; these go through Jetty and the filter.
 */
class ContentTypeFuzzIT {

    private static RedisProcess redis;
    private static Engine engine;
    private static AdmissionQueue queue;
    private static FilterServer server;
    private static Path dir;

    @BeforeContainer
    static void start() throws Exception {
        redis = RedisProcess.start();
        engine = Engine.builder().build();
        queue = AdmissionQueue.builder("jobs").url(redis.url()).bound(100_000)
                .pace(engine.limiter("jobs-pace", Policy.parse("100/1s"))).build();
        dir = Files.createTempDirectory("content-type-fuzz");
        Path rules = Files.writeString(dir.resolve("rules.yaml"), "rules:\n"
                + "  - {name: post-jobs, paths: [/jobs], methods: [POST], limit: 1/1h, enqueue: jobs}\n");
        server = FilterServer.startWith(Map.of("rules", rules.toString(), "exclude", "/sluice-admin/**"),
                Map.of("io.sluice.queue.jobs", queue.asJobQueue()));
        body(server.client(), "application/json", new byte[0]).post("/jobs").then().statusCode(200);  // the rate
    }

    @AfterContainer
    static void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {server, queue, engine, redis}) {
            if (c != null) {
                c.close();
            }
        }
        Files.deleteIfExists(dir.resolve("rules.yaml"));
        Files.deleteIfExists(dir);
    }

    @Property(tries = 400, generation = GenerationMode.RANDOMIZED, shrinking = ShrinkingMode.BOUNDED)
    void aJobWithAnyContentTypeIsQueuedOrRefusedBriefly(@ForAll("contentTypes") String contentType) {
        Response r = body(server.client(), contentType, "{}".getBytes(StandardCharsets.UTF_8)).post("/jobs");
        assertBrief(r, 202);
    }

    @Property(tries = 400, generation = GenerationMode.RANDOMIZED, shrinking = ShrinkingMode.BOUNDED)
    void rulesWithAnyContentTypeAreTakenOrRefusedBriefly(@ForAll("contentTypes") String contentType) {
        Response r = body(admin(server), contentType, "rules: []\n".getBytes(StandardCharsets.UTF_8))
                .put("/sluice-admin/rules");
        assertBrief(r, 200);
    }

    /** {@code taken} or a short JSON 415 (or Jetty's 400 for a header it will not read), never a 5xx. */
    private static void assertBrief(Response r, int taken) {
        assertThat(r.statusCode()).as(r.asString()).isIn(taken, 400, 415);
        if (r.statusCode() == 415) {
            assertThat(r.contentType()).isEqualTo("application/json");
            assertThat(r.asString()).hasSizeLessThan(300).matches("\\{\"error\":\"[ -~]*\"}");
        }
    }

    @Provide
    Arbitrary<String> contentTypes() {
        Arbitrary<String> charsets = Arbitraries.of("utf-8", "UTF8", "\"utf-8\"", "bogus-9", "", "\"", "\"\\\"",
                "x".repeat(5_000), "utf-8 x", "iso-8859-1", "\u00e9", "..", "a:b", "\"a;b\"", "\"\\\\\"");
        Arbitrary<String> parameters = Arbitraries.oneOf(charsets.map(c -> "charset=" + c),
                charsets.map(c -> " CharSet =" + c),
                Arbitraries.of("", " ", "charset", "=", "=x", "x=\"", "q=\"a\\\"b\"", "boundary=--x", ";", ",x"),
                Arbitraries.strings().withCharRange(' ', '~').withChars('\t', '\u00e9', '\u00ff').ofMaxLength(30));
        Arbitrary<String> types = Arbitraries.of("application/json", "application/yaml", "Text/YAML", "", "/", ";",
                "a/b/c", " text/plain ", "application/", "*/*", "\u00e9/x");
        return Arbitraries.oneOf(
                types.flatMap(t -> parameters.list().ofMaxSize(5).map(p -> t + (p.isEmpty() ? "" : ";")
                        + String.join(";", p))),
                Arbitraries.strings().withCharRange(' ', '~').withChars('\t', '\u0080', '\u00ff').ofMinLength(1)
                        .ofMaxLength(60));
    }
}
