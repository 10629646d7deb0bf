package io.sluice.examples.docs.readme;

/** What README.md's {@link ReportResource} takes. */
public record Report(String title) {}
