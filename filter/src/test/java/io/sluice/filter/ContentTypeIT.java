package io.sluice.filter;

import static io.sluice.filter.AdminRequests.admin;
import static io.sluice.filter.AdminRequests.body;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.restassured.response.Response;
import io.sluice.core.Engine;
import io.sluice.core.policy.Policy;
import io.sluice.core.testing.Await;
import io.sluice.core.testing.LogCapture;
import io.sluice.core.testing.RedisProcess;
import io.sluice.redis.AdmissionQueue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The content types Sluice reads itself, over HTTP: enqueue mode's jobs and the admin endpoint's rules document. Each
 * is read by one routine ({@code io.sluice.http.internal.ContentType}), not by the container's
 * {@code getContentType()}, which Jetty 12 answers by throwing for a charset it does not know: an unknown charset or a
 * header that is no media type is a short 415, never a 500 with a stack trace, and nothing of it is quoted unbounded.
 * {@link ContentTypeFuzzIT} sends hostile ones.
 */
class ContentTypeIT {

    /** A 5,000-character charset. */
    private static final String LONG = "x".repeat(5_000);

    @TempDir
    Path dir;

    private RedisProcess redis;
    private Engine engine;
    private AdmissionQueue queue;
    private FilterServer server;

    @BeforeEach
    void start() throws Exception {
        redis = RedisProcess.start();
        engine = Engine.builder().build();
        queue = AdmissionQueue.builder("jobs").url(redis.url())
                .pace(engine.limiter("jobs-pace", Policy.parse("100/1s"))).build();
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, "rules:\n"
                + "  - {name: post-jobs, paths: [/jobs], methods: [POST], limit: 1/1h, enqueue: jobs}\n");
        server = FilterServer.startWith(Map.of("rules", rules.toString(), "exclude", "/sluice-admin/**"),
                Map.of("io.sluice.queue.jobs", queue.asJobQueue()));
        body(server.client(), "application/json", new byte[0]).post("/jobs").then().statusCode(200);  // the rate
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {server, queue, engine, redis}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private Response enqueue(String contentType, byte[] body) {
        return body(server.client(), contentType, body).post("/jobs");
    }

    private Response putRules(String contentType) {
        return body(admin(server), contentType, "rules: [{name: api, limit: 2/1m}]\n".getBytes(StandardCharsets.UTF_8))
                .put("/sluice-admin/rules");
    }

    @Test
    void anUnknownCharsetOfAJobIs415NamingItAndNothingIsQueued() {
        enqueue("application/json; charset=bogus-9", "{}".getBytes(StandardCharsets.UTF_8)).then().statusCode(415)
                .contentType("application/json").header("Cache-Control", "no-store")
                .body("error", equalTo("unsupported charset \"bogus-9\" in Content-Type; expected one such as UTF-8"));
        assertThat(queue.pending()).isZero();
        enqueue("application/json; charset=utf-8", "{}".getBytes(StandardCharsets.UTF_8)).then().statusCode(202);
    }

    @Test
    void aLongCharsetIsQuotedBoundedAndNeitherAnswerNorLogHoldsIt() {
        try (LogCapture log = new LogCapture("")) {
            Response job = enqueue("application/json; charset=" + LONG, "{}".getBytes(StandardCharsets.UTF_8));
            Response rules = putRules("application/yaml; charset=" + LONG);

            for (Response r : List.of(job, rules)) {
                r.then().statusCode(415).contentType("application/json");
                assertThat(r.asString()).hasSizeLessThan(300).contains("\"" + "x".repeat(40) + "\\\"... (5000 characters)")
                        .doesNotContain("x".repeat(41));
            }
            assertThat(log.lines()).noneMatch(l -> l.contains("x".repeat(41)));
        }
        assertThat(queue.pending()).isZero();
    }

    @Test
    void aJobsContentTypeIsCarriedAsSentAndTextInAnotherCharsetAsItsBytes() throws Exception {
        List<AdmissionQueue.Entry> handled = new CopyOnWriteArrayList<>();
        queue.consume("workers", "test-worker", handled::add);
        byte[] latin1 = "\u00c3\u00a9".getBytes(StandardCharsets.ISO_8859_1);   // bytes that are also UTF-8's "é"
        enqueue("text/plain ; Charset=\"ISO-8859-1\"", latin1).then().statusCode(202);
        enqueue("text/plain;;charset=UTF-8", "\u00e9".getBytes(StandardCharsets.UTF_8)).then().statusCode(202);
        Await.until("both jobs handled", Duration.ofSeconds(10), () -> handled.size() == 2);

        assertThat(handled.get(0).payload()).contains("\"contentType\":\"text/plain ; Charset=\\\"ISO-8859-1\\\"\"",
                "\"bodyBase64\":\"w6k=\"").doesNotContain("\"body\":");
        assertThat(handled.get(1).payload()).contains("\"contentType\":\"text/plain;;charset=UTF-8\"",
                "\"body\":\"\\u00e9\"");
    }

    @Test
    void aHeaderThatIsNoMediaTypeIs415ForAJobAndForTheRules() {
        enqueue(";", "{}".getBytes(StandardCharsets.UTF_8)).then().statusCode(415).contentType("application/json")
                .body("error", equalTo("expected a media type (type/subtype), got \";\""));
        putRules(";").then().statusCode(415).contentType("application/json").body("error", equalTo(
                "expected a media type (type/subtype), got \";\"; a rules document is Content-Type: application/yaml"
                        + " (UTF-8)"));
        assertThat(queue.pending()).isZero();
    }

    @Test
    void theRulesAreYamlInUtf8ReadAsRfc9110WritesContentTypes() {
        putRules("application/yaml; charset=bogus-9").then().statusCode(415).body("error", equalTo(
                "unsupported charset \"bogus-9\" in Content-Type; expected one such as UTF-8; a rules document is"
                        + " Content-Type: application/yaml (UTF-8)"));
        putRules("application/yaml; charset=iso-8859-1").then().statusCode(415);
        putRules("application/yaml; charset=utf-8; charset=iso-8859-1").then().statusCode(415);
        putRules("text/plain").then().statusCode(415);
        putRules("application/yaml;;;;").then().statusCode(200).body("version", equalTo(1));  // empty parameters
        putRules("Application/X-YAML ; Charset=\"utf8\"").then().statusCode(200).body("version", equalTo(2));
    }
}
