package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.sluice.core.Engine;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.Await;
import io.sluice.filter.HttpLoad.Answer;
import io.sluice.redis.AdmissionQueue;
import io.sluice.redis.RedisStore;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The admission queue ({@link FaultMatrixIT}): a rule in enqueue mode on Redis ({@code POST /jobs}, {@code 1/1h} per
 * {@code X-Client}: one request straight to the application, the next ones queued with a 202), its
 * {@link AdmissionQueue} on the same Redis, paced by a limiter on Redis too, and two workers. The load posts five jobs
 * per client. Every job answered 202 must reach {@code DONE}; on an empty restart, the jobs Redis held are lost with
 * it, as docs/enqueue.md says ("What Redis lost is gone: the jobs waiting in it and the outcomes, whose ids then answer
 * 404"): those may be {@code DONE} (a worker held one across the restart) or unknown, never stuck.
 */
final class QueueOnRedis implements Capability {

    private static final String RULES = "rules:\n  - {name: post-jobs, paths: [/jobs], methods: [POST], limit: 1/1h,"
            + " key: \"header:X-Client\", enqueue: jobs}\n";
    /**
     * The longest a job may take to be processed once Redis answers: a worker's longest pause between attempts (2 s),
     * a claim timeout, and slack for a loaded machine.
     */
    private static final Duration PROCESSED_WITHIN = Duration.ofSeconds(20);

    private final Engine engine;
    private final AdmissionQueue queue;
    private final FilterServer server;
    /** The ids of the jobs answered 202, in order. */
    private final List<String> accepted = new CopyOnWriteArrayList<>();
    private final Set<String> handled = ConcurrentHashMap.newKeySet();
    private final AtomicLong posted = new AtomicLong();
    /** Why a post got no answer. */
    private final List<String> errors = new CopyOnWriteArrayList<>();

    QueueOnRedis(FaultyRedis redis) throws Exception {
        String url = redis.url();
        engine = Engine.builder().store(RedisStore.builder().url(url).build()).build();
        queue = AdmissionQueue.builder("jobs").url(url).bound(10_000).claimTimeout(Duration.ofSeconds(1))
                .timeout(Duration.ofMillis(500)).pace(engine.limiter("jobs-pace", Policy.parse("1000/1s"))).build();
        for (String worker : List.of("w-1", "w-2")) {
            queue.consume("workers", worker, entry -> handled.add(entry.id()));
        }
        Path rules = Files.createTempFile("sluice-fault-matrix", ".yaml");
        Files.writeString(rules, RULES);
        server = FilterServer.startWith(Map.of("rules", rules.toString(), "store", url),
                Map.of("io.sluice.queue.jobs", queue.asJobQueue()));
    }

    /** A {@code POST /jobs} as {@code client}; the id of a job it queued (202) is kept. */
    private Answer post(String client) {
        long start = System.nanoTime();
        int status;
        try {
            HttpResponse<String> r = HttpLoad.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + server.port() + "/app/jobs")).header("X-Client", client).header("Content-Type",
                    "application/json").timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofString(
                    "{\"job\": " + posted.incrementAndGet() + "}")).build(), HttpResponse.BodyHandlers.ofString());
            status = r.statusCode();
            if (status == 202) {
                String location = r.headers().firstValue("Location").orElseThrow();
                accepted.add(location.substring(location.lastIndexOf('/') + 1));
            }
        } catch (Exception e) {
            errors.add(e.toString());
            status = -1;
        }
        return new Answer(status, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    /** @return the statuses of three posts as a fresh client: one under the rate, two queued */
    private List<Integer> burst(String client) {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            statuses.add(post(client).status());
        }
        return statuses;
    }

    @Override
    public void arrange() {
        int before = accepted.size();
        assertThat(burst("arranged")).as("one under the rate, then queued").containsExactly(200, 202, 202);
        awaitDone(accepted.subList(before, accepted.size()));
    }

    @Override
    public HttpLoad load() {
        return new HttpLoad(2, () -> post("load-" + posted.get() / 5));
    }

    /** A fresh client gets one 200 and then 202s, no more (exact again), and its jobs are processed. */
    @Override
    public void awaitRecovered(Fault fault) {
        AtomicLong attempt = new AtomicLong();
        List<String> probed = new ArrayList<>();
        Await.until("one 200, then 202s, for a fresh client", PROCESSED_WITHIN, () -> {
            int before = accepted.size();
            boolean exact = burst("recovered-" + attempt.incrementAndGet()).equals(List.of(200, 202, 202));
            probed.clear();
            probed.addAll(accepted.subList(before, accepted.size()));
            return exact;
        });
        awaitDone(probed);
    }

    private void awaitDone(List<String> ids) {
        Await.until(ids + " DONE", PROCESSED_WITHIN, () -> ids.stream().allMatch(id -> status(id)
                .filter(s -> s == AdmissionQueue.Status.DONE).isPresent()));
    }

    /** @return the job's status; empty when it is unknown, or Redis fails to say */
    private Optional<AdmissionQueue.Status> status(String id) {
        try {
            return queue.outcome(id).map(AdmissionQueue.Outcome::status);
        } catch (StoreException e) {
            return Optional.empty();
        }
    }

    @Override
    public Held verify(Fault fault, HttpLoad load, long healStartMillis) {
        assertThat(load.statuses.keySet()).as("under the rate or not enqueued while the rule falls back: 200;"
                + " queued: 202; the queue unreachable: 429 (%s)", errors).isSubsetOf(200, 202, 429);
        List<String> kept = new ArrayList<>();
        List<String> lost = new ArrayList<>();
        for (String id : accepted) {
            boolean heldByOldRedis = Long.parseLong(id.substring(0, id.indexOf('-'))) < healStartMillis;
            (fault.losesData() && heldByOldRedis ? lost : kept).add(id);
        }
        awaitDone(kept);
        assertThat(handled).as("each job DONE was handled").containsAll(kept);
        for (String id : lost) {
            assertThat(status(id)).as("a job the empty Redis lost: done before, or unknown").satisfiesAnyOf(
                    s -> assertThat(s).isEmpty(), s -> assertThat(s).contains(AdmissionQueue.Status.DONE));
        }
        String last = kept.get(kept.size() - 1);
        server.client().get("/sluice-jobs/jobs/" + last).then().statusCode(200)
                .body("status", equalTo("DONE"));
        long gone = lost.stream().filter(id -> status(id).isEmpty()).count();
        return new Held(0, accepted.size() + " jobs accepted, " + kept.size() + " DONE"
                + (fault.losesData() ? ", " + lost.size() + " held by the emptied Redis (" + gone + " gone with it)"
                        : ", none lost"));
    }

    @Override
    public void close() throws Exception {
        server.close();
        queue.close();
        engine.close();
    }
}
