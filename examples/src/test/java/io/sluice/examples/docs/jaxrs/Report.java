package io.sluice.examples.docs.jaxrs;

/** What docs/jaxrs.md's {@link ReportResource} serves. */
public record Report(String id) {}
