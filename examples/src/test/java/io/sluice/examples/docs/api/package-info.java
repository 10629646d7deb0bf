/**
 * The classes that docs/programmatic-api.md shows whole, imports and all, as a reader copies them ({@code DocsSnippetsTest}
 * finds each block here, line for line). Compiled, not run: they name a Redis that does not exist.
 */
package io.sluice.examples.docs.api;
