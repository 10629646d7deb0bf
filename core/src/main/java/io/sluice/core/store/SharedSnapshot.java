package io.sluice.core.store;

import java.util.List;

/**
 * What {@link SharedSettings#read()} gives: the rules document and the overrides, read together.
 *
 * @param version the settings' version at the read ({@link SharedSettings#version()})
 * @param document the rules document, {@link SharedDocument#NONE} when there is none
 * @param overrides the overrides, expired ones possibly included
 */
public record SharedSnapshot(long version, SharedDocument document, List<KeyOverride> overrides) {

    /** Nothing shared yet. */
    public static final SharedSnapshot EMPTY = new SharedSnapshot(0, SharedDocument.NONE, List.of());

    public SharedSnapshot {
        if (document == null) {
            throw new IllegalArgumentException("document is required: SharedDocument.NONE when there is none");
        }
        overrides = List.copyOf(overrides);
    }
}
