package io.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.matchesPattern;

import io.restassured.response.Response;
import io.sluice.core.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The playground's enqueue page and its rule: {@code POST /api/jobs} once per 5 s at once, then into queue
 * {@code demo-jobs} (5 places, one job every 2 s; in memory, as {@code SLUICE_REDIS_URL} is not set here).
 */
class EnqueueDemoIT {

    @RegisterExtension
    static final RunningDemo demo = RunningDemo.at("/");

    @Test
    void overTheRateJobsAreQueuedUntilTheQueueIsFullAndAQueuedOneIsDone() throws Exception {
        String client = RunningDemo.freshClient();
        List<Response> answers = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            answers.add(demo.from(client).contentType("application/json").body("{\"job\": " + i + "}")
                    .post("/api/jobs"));
        }
        assertThat(answers).extracting(Response::statusCode).containsExactly(200, 202, 202, 202, 202, 202, 429);
        answers.get(1).then().header("Location", matchesPattern("/api/sluice-jobs/demo-jobs/[0-9]+-[0-9]+"));
        assertThat(Long.parseLong(answers.get(6).header("Retry-After"))).isPositive();

        String location = answers.get(1).header("Location");
        Await.until("the first queued job processed", Duration.ofSeconds(10), () -> "DONE".equals(
                demo.from(client).get(location).then().statusCode(200).extract().jsonPath().getString("status")));
    }

    @Test
    void thePageIsServedAndLinkedFromThePlayground() {
        demo.direct().get("/jobs.html").then().statusCode(200).body(containsString("202 Accepted"));
        demo.direct().get("/").then().statusCode(200).body(containsString("href=\"jobs.html\""));
    }
}
