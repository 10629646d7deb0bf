/**
 * The code of the docs' {@code ```java} blocks, compiled with the build: {@code DocsSnippetsTest} requires each block
 * of README.md and docs/*.md to appear in a compiled source of this module, line for line, so an API change that
 * breaks a snippet breaks the build. Compiled, not run: the Redis snippets name hosts that do not exist.
 */
package io.sluice.examples.docs;
