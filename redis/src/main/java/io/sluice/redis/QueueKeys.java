package io.sluice.redis;

/**
 * The Redis keys of an {@link AdmissionQueue}, all in one Cluster hash slot: {@code {prefix:queue:name}} (the stream),
 * {@code {prefix:queue:name}:results} (capped result stream), {@code {prefix:queue:name}:outcome:<id>} (an entry's
 * outcome) and {@code {prefix:queue:name}:processed} (the count of recorded outcomes).
 *
 * @param stream the stream
 * @param results the capped result stream
 * @param processed the count of recorded outcomes
 * @param outcomePrefix the outcome hashes' keys, less the entry's id
 */
record QueueKeys(String stream, String results, String processed, String outcomePrefix) {

    static QueueKeys of(String prefix, String name) {
        String stream = "{" + prefix + ":queue:" + name + "}";
        return new QueueKeys(stream, stream + ":results", stream + ":processed", stream + ":outcome:");
    }

    /** @return the key of the outcome hash of entry {@code id} */
    String outcome(Object id) {
        return outcomePrefix + id;
    }
}
