package io.sluice.http;

/**
 * Where a rule in force comes from ({@link FrontDoor#admin()}, {@link Administration#ruleOrigins()}): the layers of
 * configuration, lowest first. A rule of the shared rules document replaces a local rule of its name.
 */
public enum RuleOrigin {

    /** Parameter {@code limit}'s rule. */
    PARAMETER,
    /** The rules file (parameter {@code rules}). */
    FILE,
    /** The shared rules document ({@link io.sluice.core.Operations#replaceRules}). */
    DOCUMENT;

    /** @return the origin as the admin endpoint writes it: {@code parameter}, {@code file}, {@code document} */
    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
