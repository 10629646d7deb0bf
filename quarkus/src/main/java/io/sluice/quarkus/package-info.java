/**
 * Sluice in Quarkus: the request origin Quarkus REST lacks (no servlet request), and the start-up work a portable
 * extension would do, which ArC does not run. The JAX-RS filter itself ({@code io.sluice.jaxrs.RateLimitFeature}) and
 * the beans ({@code io.sluice.cdi.internal.SluiceBeans}, {@code SluiceReadiness}) come from {@code sluice-jaxrs} and
 * {@code sluice-cdi}, found in their Jandex indexes.
 */
package io.sluice.quarkus;
