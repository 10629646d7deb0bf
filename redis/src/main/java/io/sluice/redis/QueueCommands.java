package io.sluice.redis;

import io.sluice.core.store.StoreException;
import io.sluice.redis.AdmissionQueue.Admission;
import io.sluice.redis.AdmissionQueue.Entry;
import io.sluice.redis.AdmissionQueue.Outcome;
import io.sluice.redis.AdmissionQueue.Status;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.XAutoClaimParams;
import redis.clients.jedis.params.XClaimParams;
import redis.clients.jedis.params.XPendingParams;
import redis.clients.jedis.params.XReadGroupParams;
import redis.clients.jedis.resps.StreamEntry;
import redis.clients.jedis.resps.StreamPendingEntry;

/**
 * The Redis side of an {@link AdmissionQueue}: its two scripts (admission, and recording an outcome), reading an
 * outcome back, creating a consumer group, its workers' reads and claims, and counting; a failed call becomes a
 * {@link StoreException}.
 */
final class QueueCommands {

    /**
     * KEYS[1] the stream; ARGV[1] the bound, ARGV[2] the payload. Answers {1, id, length after} or {0, length}.
     */
    static final String ADMIT = """
            local len = redis.call('XLEN', KEYS[1])
            if len >= tonumber(ARGV[1]) then return {0, len} end
            local id = redis.call('XADD', KEYS[1], '*', 'payload', ARGV[2])
            return {1, id, len + 1}
            """;

    /**
     * KEYS[1] the stream, KEYS[2] the result stream, KEYS[3] the outcome hash, KEYS[4] the processed count;
     * ARGV: group, id, status, worker, at (epoch ms), error, ttl (ms), result stream length. Answers 1 when this
     * outcome was recorded, 0 when the entry was no longer pending (another worker's outcome came first).
     */
    static final String FINISH = """
            local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
            local deliveries = 1
            if p[1] then deliveries = p[1][4] end
            if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
            redis.call('XDEL', KEYS[1], ARGV[2])
            redis.call('HSET', KEYS[3], 'status', ARGV[3], 'worker', ARGV[4], 'at', ARGV[5], 'error', ARGV[6],
              'deliveries', deliveries)
            redis.call('PEXPIRE', KEYS[3], ARGV[7])
            redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[8], '*', 'id', ARGV[2], 'status', ARGV[3], 'worker', ARGV[4],
              'at', ARGV[5], 'error', ARGV[6], 'deliveries', deliveries)
            redis.call('INCR', KEYS[4])
            return 1
            """;

    private final UnifiedJedis redis;
    private final String name;
    private final QueueKeys keys;
    private final Duration resultTtl;
    private final int resultLength;
    private final QueueScript admit = new QueueScript(ADMIT);
    private final QueueScript finish = new QueueScript(FINISH);

    QueueCommands(UnifiedJedis redis, String name, QueueKeys keys, Duration resultTtl, int resultLength) {
        this.redis = redis;
        this.name = name;
        this.keys = keys;
        this.resultTtl = resultTtl;
        this.resultLength = resultLength;
    }

    /**
     * Adds {@code payload} to the stream while it holds fewer than {@code bound} entries, in one atomic step.
     *
     * @param retryAfter when refused, the retry hint for the number of places to free
     */
    Admission admit(int bound, String payload, LongFunction<Duration> retryAfter) {
        List<?> reply = (List<?>) call(() -> admit.run(redis, List.of(keys.stream()),
                List.of(Integer.toString(bound), payload)));
        if (number(reply.get(0)) == 1) {
            return new Admission(true, text(reply.get(1)), number(reply.get(2)), Duration.ZERO);
        }
        long length = number(reply.get(1));
        return new Admission(false, null, length, retryAfter.apply(length - bound + 1));
    }

    /** Records an outcome. @return whether it was the first for this entry */
    boolean finish(String group, String id, Status status, String worker, String error) {
        Object r = call(() -> finish.run(redis, List.of(keys.stream(), keys.results(), keys.outcome(id),
                        keys.processed()),
                List.of(group, id, status.name(), worker, Long.toString(System.currentTimeMillis()),
                        error == null ? "" : error, Long.toString(Math.max(1, resultTtl.toMillis())),
                        Integer.toString(resultLength))));
        return number(r) == 1;
    }

    /**
     * @return how many times entry {@code id} was delivered to {@code group}'s consumers ({@code XPENDING}'s count,
     *     this delivery included); 0 when it is not pending (another worker recorded its outcome meanwhile)
     */
    long deliveries(String group, StreamEntryID id) {
        return call(() -> {
            List<StreamPendingEntry> p = redis.xpending(keys.stream(), group, XPendingParams.xPendingParams(id, id, 1));
            return p.isEmpty() ? 0L : p.get(0).getDeliveredTimes();
        });
    }

    /**
     * Creates consumer group {@code group} from the stream's start (and the stream, empty, when missing), unless it
     * exists.
     */
    void createGroup(String group) {
        try {
            redis.xgroupCreate(keys.stream(), group, new StreamEntryID(), true);
        } catch (JedisDataException e) {
            if (e.getMessage() == null || !e.getMessage().startsWith("BUSYGROUP")) {
                throw new StoreException("admission queue " + name + ": cannot create the consumer group " + group
                        + ": " + e.getMessage(), e);
            }
        } catch (JedisException e) {
            throw new StoreException("admission queue " + name + ": cannot create the consumer group " + group
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * @return {@code XAUTOCLAIM}'s answer for one entry of {@code group} idle at least {@code minIdleMillis}, scanned
     *     from {@code cursor}, now {@code consumer}'s: the next cursor and the entries (a deleted one as null)
     */
    Map.Entry<StreamEntryID, List<StreamEntry>> claim(String group, String consumer, long minIdleMillis,
            StreamEntryID cursor) {
        return call(() -> redis.xautoclaim(keys.stream(), group, consumer, minIdleMillis, cursor,
                XAutoClaimParams.xAutoClaimParams().count(1)));
    }

    /** @return at most one entry never delivered to {@code group}, waiting for one at most {@code blockMillis} */
    List<Map.Entry<String, List<StreamEntry>>> read(String group, String consumer, int blockMillis) {
        return call(() -> redis.xreadGroup(group, consumer,
                XReadGroupParams.xReadGroupParams().count(1).block(blockMillis),
                Map.of(keys.stream(), StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY)));
    }

    /** Makes entry {@code id} {@code consumer}'s, its idle time zero ({@code XCLAIM ... JUSTID}). */
    void touch(String group, String consumer, StreamEntryID id) {
        call(() -> redis.xclaimJustId(keys.stream(), group, consumer, 0, XClaimParams.xClaimParams(), id));
    }

    /** @return the stream's length */
    long length() {
        return call(() -> redis.xlen(keys.stream()));
    }

    /** @return the count of recorded outcomes */
    long processed() {
        String n = call(() -> redis.get(keys.processed()));
        return n == null ? 0 : Long.parseLong(n);
    }

    /** @return what is known of entry {@code id}, as {@link AdmissionQueue#outcome} says */
    Optional<Outcome> outcome(String id) {
        StreamEntryID entryId;
        try {
            entryId = new StreamEntryID(id);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        return call(() -> {
            Map<String, String> h = redis.hgetAll(keys.outcome(entryId));
            if (!h.isEmpty()) {
                return Optional.of(recorded(entryId.toString(), h));
            }
            if (redis.xrange(keys.stream(), entryId, entryId, 1).isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(inStream(entryId));
        });
    }

    private static Outcome recorded(String id, Map<String, String> h) {
        String error = h.get("error");
        return new Outcome(id, Status.valueOf(h.get("status")), Instant.ofEpochMilli(Long.parseLong(h.get("at"))),
                h.get("worker"), error == null || error.isEmpty() ? null : error, Long.parseLong(h.get("deliveries")));
    }

    /** @return PROCESSING when a consumer group holds the entry, else QUEUED */
    private Outcome inStream(StreamEntryID entryId) {
        for (var info : redis.xinfoGroups(keys.stream())) {
            List<StreamPendingEntry> p = redis.xpending(keys.stream(), info.getName(),
                    XPendingParams.xPendingParams(entryId, entryId, 1));
            if (!p.isEmpty()) {
                return new Outcome(entryId.toString(), Status.PROCESSING, null, p.get(0).getConsumerName(), null,
                        p.get(0).getDeliveredTimes());
            }
        }
        return new Outcome(entryId.toString(), Status.QUEUED, null, null, null, 0);
    }

    /** @return the entry a handler is given for stream entry {@code e} */
    static Entry entry(StreamEntry e, boolean reclaimed) {
        Map<String, String> fields = e.getFields();
        return new Entry(e.getID().toString(), fields == null ? null : fields.get("payload"),
                Instant.ofEpochMilli(e.getID().getTime()), reclaimed);
    }

    /**
     * Makes a call; once more, on a fresh connection, where a pooled connection failed otherwise than by a timeout
     * (one that a restarted Redis closed: the call was not run), as the store does.
     */
    private <T> T call(Supplier<T> call) {
        try {
            try {
                return call.get();
            } catch (JedisConnectionException stale) {
                if (timedOut(stale)) {
                    throw stale;            // the call was sent and may have run: not sent twice
                }
                if (redis instanceof RedisClient pooled) {
                    pooled.getPool().clear();       // its other idle connections are as stale: closed, not tried
                }
                return call.get();
            }
        } catch (JedisException e) {
            throw new StoreException("admission queue " + name + ": Redis call failed: " + e.getMessage(), e);
        }
    }

    private static boolean timedOut(JedisConnectionException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static long number(Object o) {
        if (o instanceof Long l) {
            return l;
        }
        return Long.parseLong(text(o));
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o);
    }
}
