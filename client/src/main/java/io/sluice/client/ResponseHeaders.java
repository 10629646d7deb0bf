package io.sluice.client;

import java.util.List;

/** A response's header fields, by name in any case: what {@link RemoteAnswer} reads, whatever the client. */
@FunctionalInterface
interface ResponseHeaders {

    /** @return the field's values, one per line, in order; empty (or null) when it is absent */
    List<String> values(String name);

    /** @return the field's first value, or null */
    default String first(String name) {
        List<String> all = values(name);
        return all == null || all.isEmpty() ? null : all.get(0);
    }
}
