package io.sluice.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import io.restassured.response.Response;
import io.sluice.http.internal.WebApps;
import io.sluice.core.testing.LogCapture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a client of a JAX-RS application sees; run over HTTP against each implementation by a subclass. */
abstract class RateLimitSuite {

    @TempDir
    Path dir;

    abstract JaxrsServer.Implementation implementation();

    JaxrsServer start(JaxrsServer.Setup setup) throws Exception {
        return new JaxrsServer(implementation(), setup);
    }

    /** @return a setup whose JAX-RS property {@code sluice.rules} names a rules file holding {@code yaml} */
    private JaxrsServer.Setup withRules(String yaml) throws java.io.IOException {
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, yaml);
        return new JaxrsServer.Setup().property("sluice.rules", rules.toString());
    }

    @Test
    void aClassAnnotationLimitsEveryMethodOfTheClassTogether() throws Exception {
        try (JaxrsServer server = start(new JaxrsServer.Setup())) {
            server.client().get("/api/limited/a").then().statusCode(200).header("X-RateLimit-Remaining", "2").header("RateLimit-Policy", startsWith("\"Limited\""));
            server.client().get("/api/limited/a").then().statusCode(200);
            server.client().get("/api/limited/b").then().statusCode(200).header("X-Decision-Binding", "Limited");
            server.client().get("/api/limited/a").then().statusCode(429)
                    .header("RateLimit-Policy", "\"Limited\";q=3;w=3600").body("error.context.policy", equalTo("Limited"));
            server.client().get("/api/hello").then().statusCode(200).header("RateLimit", (String) null);
        }
    }

    /**
     * The JAX-RS filter reads no request's content type (it neither enqueues nor reads bodies): whatever one is sent,
     * the limit answers 429 as for any request, quoting none of it; never a 500. (A header the implementation will not
     * read is its own 400, before any filter: {@code ;} on Jersey, an unknown charset too on RESTEasy.)
     */
    @Test
    void aHostileContentTypeIsAnsweredByTheLimitAsAnyOther() throws Exception {
        try (JaxrsServer server = start(new JaxrsServer.Setup().property("sluice.limit", "1/1m"))) {
            server.client().get("/api/hello").then().statusCode(200);
            for (String contentType : new String[] {"application/json; charset=bogus-9", ";", "application/yaml;;;;",
                    "text/plain; charset=" + "x".repeat(5_000), "a/b/c; charset=\"\\"}) {
                Response denied = server.client().contentType(contentType).get("/api/hello");
                assertThat(denied.statusCode()).as(contentType).isIn(400, 429);  // 400: the implementation's own
                if (denied.statusCode() == 429) {
                    denied.then().body("error.code", equalTo("rate_limited"));
                }
                assertThat(denied.asString()).doesNotContain("xxxxx", "bogus");
            }
        }
    }

    /** An application's CORS filter: every response allows one origin. */
    public static final class AppCors implements jakarta.ws.rs.container.ContainerResponseFilter {
        @Override
        public void filter(jakarta.ws.rs.container.ContainerRequestContext request,
                jakarta.ws.rs.container.ContainerResponseContext response) {
            response.getHeaders().add("Access-Control-Allow-Origin", "https://app.example");
        }
    }

    @Test
    void anApplicationsCorsFilterSetsTheOneAccessControlAllowOriginOfA429() throws Exception {
        JaxrsServer.Setup setup = new JaxrsServer.Setup().property("sluice.limit", "1/1m")
                .property("sluice.deny-headers", "Access-Control-Allow-Origin: *|Access-Control-Expose-Headers: Retry-After");
        setup.classes.add(AppCors.class);
        try (JaxrsServer server = start(setup)) {
            server.client().get("/api/hello").then().statusCode(200);
            Response denied = server.client().get("/api/hello");

            denied.then().statusCode(429).header("Access-Control-Expose-Headers", "Retry-After");
            assertThat(denied.headers().getValues("Access-Control-Allow-Origin")).as("the application's, once")
                    .containsExactly("https://app.example");
        }
        JaxrsServer.Setup alone = new JaxrsServer.Setup().property("sluice.limit", "1/1m")
                .property("sluice.deny-headers", "Access-Control-Allow-Origin: *");
        try (JaxrsServer server = start(alone)) {
            server.client().get("/api/hello").then().statusCode(200).header("Access-Control-Allow-Origin", (String) null);
            server.client().get("/api/hello").then().statusCode(429).header("Access-Control-Allow-Origin", "*");
        }
    }

    @Test
    void anAnnotationOnAnInterfaceOrAnOverriddenMethodLimitsOnEveryImplementation() throws Exception {
        JaxrsServer.Setup setup = new JaxrsServer.Setup();
        setup.classes.add(Resources.LimitedImpl.class);
        setup.classes.add(Resources.Overriding.class);
        try (JaxrsServer server = start(setup)) {
            server.client().get("/api/iface").then().statusCode(200).header("RateLimit-Policy", "\"iface\";q=1;w=3600");
            server.client().get("/api/iface").then().statusCode(429);
            server.client().get("/api/sub/m").then().statusCode(200).header("RateLimit-Policy", "\"base\";q=1;w=3600");
            server.client().get("/api/sub/m").then().statusCode(429);
        }
    }

    @Test
    void aRuleReferencedOnlyInASubResourceAppliesOnlyThereFromTheStart() throws Exception {
        JaxrsServer.Setup setup = withRules("""
                rules:
                  - name: sub-only
                    paths: [/api/hello]
                    limit: 1/1h
                """);
        setup.classes.add(Resources.Locator.class);
        try (JaxrsServer server = start(setup)) {
            server.client().get("/api/hello").then().statusCode(200).header("RateLimit", (String) null);
            server.client().get("/api/hello").then().statusCode(200);     // referenced: not applied by its paths
            server.client().get("/api/locator/sub").then().statusCode(200).header("RateLimit-Policy", startsWith("\"sub-only\""));
            server.client().get("/api/locator/sub").then().statusCode(429);
        }
    }

    /** @return the error that stopped the deployment of {@code setup}, its servlets initialized at start-up */
    private Throwable deploymentError(JaxrsServer.Setup setup) {
        setup.beforeStart = context -> {
            for (org.eclipse.jetty.ee10.servlet.ServletHolder h : context.getServletHandler().getServlets()) {
                h.setInitOrder(1);                            // as a container starts a JAX-RS application
            }
        };
        Throwable error = org.assertj.core.api.Assertions.catchThrowable(() -> start(setup).close());
        assertThat(error).as("the deployment fails").isNotNull();
        while (error.getCause() != null && error.getCause() != error) {
            error = error.getCause();
        }
        return error;
    }

    /** Rule "shared" of the rules file, and the sub-resources of a class with locators only. */
    private JaxrsServer startWithOnlyLocators() throws Exception {
        JaxrsServer.Setup setup = withRules("""
                rules:
                  - name: shared
                    paths: [/api/hello]
                    limit: 2/1h
                """);
        setup.classes.add(Resources.OnlyLocators.class);
        return start(setup);
    }

    @Test
    void anErrorInALazilyConfiguredSubResourceIsLoggedOnceAndItsRequestsGoOnWithoutItsAnnotations() throws Exception {
        try (LogCapture log = new LogCapture("io.sluice.jaxrs"); JaxrsServer server = startWithOnlyLocators()) {
            for (int i = 0; i < 3; i++) {                     // past the refused "2/1h": not applied, and not a 500
                server.client().get("/api/only-locators/shared").then().statusCode(200).body(equalTo("sub"))
                        .header("RateLimit", (String) null);
                server.client().get("/api/only-locators/missing").then().statusCode(200).body(equalTo("sub"));
            }
            server.client().get("/api/only-locators/fine").then().statusCode(200)
                    .header("RateLimit-Policy", "\"fine-sub\";q=1;w=3600");
            server.client().get("/api/only-locators/fine").then().statusCode(429);     // a valid one applies

            assertThat(log.messages().stream().filter(m -> m.startsWith("SEVERE")).toList()).as("once each")
                    .containsExactlyInAnyOrder("SEVERE io.sluice.jaxrs.RateLimitFeature: @RateLimit annotations of "
                            + "io.sluice.jaxrs.Resources$SharingSub.get are not applied: @RateLimit on "
                            + "io.sluice.jaxrs.Resources$SharingSub.get (shared).algorithm: expected gcra, the"
                            + " algorithm of the configured rule \"shared\" (parameter limit or the rules file): one"
                            + " name is one counter, kept by one algorithm; give the annotation another name, got"
                            + " \"fixed-window\"."
                            + " JAX-RS configured this sub-resource on its first request, after start-up, so its"
                            + " requests go on without these limits (the configured rules still apply by their paths)."
                            + " Fix the annotation; to have such errors stop start-up instead, let a class with a"
                            + " resource method of its own return the sub-resource from a locator declared with its"
                            + " type",
                            "SEVERE io.sluice.jaxrs.RateLimitFeature: @RateLimit annotations of "
                            + "io.sluice.jaxrs.Resources$MissingSub.get are not applied: @RateLimit on "
                            + "io.sluice.jaxrs.Resources$MissingSub.get.rule: expected the name of a rule of the rules"
                            + " file, one of [shared], got \"missing\". JAX-RS configured this sub-resource on its"
                            + " first request, after start-up, so its requests go on without these limits (the"
                            + " configured rules still apply by their paths). Fix the annotation; to have such errors"
                            + " stop start-up instead, let a class with a resource method of its own return the"
                            + " sub-resource from a locator declared with its type");
        }
    }

    @Test
    void aRefusedSubResourceMethodLeavesNoNameBehindThatWouldRefuseAnother() throws Exception {
        try (JaxrsServer server = startWithOnlyLocators()) {
            server.client().get("/api/only-locators/partly").then().statusCode(200).header("RateLimit", (String) null);
            server.client().get("/api/only-locators/partly-again").then().statusCode(200)
                    .header("RateLimit-Policy", "\"partly\";q=5;w=3600");
        }
    }

    @Test
    void overloadedMethodsWithUnnamedAnnotationsStopStartUpInsteadOfSharingACounter() throws Exception {
        JaxrsServer.Setup setup = new JaxrsServer.Setup();
        setup.classes.add(Resources.Overloads.class);
        assertThat(deploymentError(setup)).isInstanceOf(io.sluice.core.config.ConfigException.class)
                .hasMessageContaining("(Overloads.get).name: expected a name")
                .hasMessageContaining("Overloads.get(String)").hasMessageContaining("Overloads.get()");
    }

    @Test
    void aMethodImplementingAGenericInterfaceIsOneMethodNotTwoOverloads() throws Exception {
        JaxrsServer.Setup setup = new JaxrsServer.Setup();
        setup.classes.add(Resources.GenericImpl.class);
        try (JaxrsServer server = start(setup)) {
            server.client().body("x").post("/api/generic").then().statusCode(200);
        }
    }

    @Test
    void aSubResourceMethodImplementingAGenericInterfaceIsOneMethodNotTwoOverloads() throws Exception {
        // javac adds a bridge create(Object), with the annotations of create(String): the scan must not read it
        JaxrsServer.Setup setup = new JaxrsServer.Setup();
        setup.classes.add(Resources.GenericLocator.class);
        try (JaxrsServer server = start(setup)) {
            server.client().get("/api/generic-locator").then().statusCode(200);
        }
    }

    @Test
    void anAnnotationNamedLikeAConfiguredRuleOfAnotherAlgorithmStopsStartUp() throws Exception {
        JaxrsServer.Setup setup = withRules("""
                rules:
                  - name: shared
                    paths: [/api/hello]
                    limit: 2/1h
                """);
        setup.classes.add(Resources.SharedWithTheRulesFile.class);
        assertThat(deploymentError(setup)).isInstanceOf(io.sluice.core.config.ConfigException.class)
                .hasMessageStartingWith("@RateLimit on io.sluice.jaxrs.Resources$SharedWithTheRulesFile.get (shared)"
                        + ".algorithm: expected gcra, the algorithm of the configured rule \"shared\"");
    }

    @Test
    void aReloadedRuleNamedLikeAnAnnotationOfAnotherAlgorithmIsRefusedAndTheRulesInForceStay() throws Exception {
        JaxrsServer.Setup setup = withRules("""
                rules: [{name: shared, paths: [/api/hello], limit: 2/1h, algorithm: fixed-window}]
                """);
        setup.classes.add(Resources.SharedWithTheRulesFile.class);           // fixed-window, as the file's rule
        try (LogCapture log = new LogCapture("io.sluice.http.ReloadingRules");
                JaxrsServer server = start(setup)) {
            server.client().get("/api/hello").then().statusCode(200).header("RateLimit-Policy", "\"shared\";q=2;w=3600");

            rewriteRules("rules: [{name: shared, paths: [/api/hello], limit: 5/1h}]");     // GCRA, the default
            server.clock.advance(Duration.ofSeconds(11));
            server.client().get("/api/hello").then().statusCode(200).header("RateLimit-Policy", "\"shared\";q=2;w=3600");
            assertThat(log.warnings()).anySatisfy(line -> assertThat(line).contains("changed but is invalid; keeping the"
                    + " previous 1 rule(s) [shared]: rule \"shared\".algorithm: expected fixed-window, the algorithm of the"
                    + " @RateLimit annotation of the same name on io.sluice.jaxrs.Resources$SharedWithTheRulesFile.get"));

            rewriteRules("rules: [{name: shared, paths: [/api/hello], limit: 5/1h, algorithm: fixed-window}]");
            server.clock.advance(Duration.ofSeconds(11));
            server.client().get("/api/hello").then().statusCode(200).header("RateLimit-Policy", "\"shared\";q=5;w=3600");
        }
    }

    /** The error for a queue "queue" of 1/1m burst 20 max-wait 1h beside "in-flight", 20 concurrent, on {@code where}. */
    private static String queuedLeaseError(String where) {
        return "@RateLimit on " + where + ": rule \"in-flight\": its leases expire after 1m, but a request may wait up to"
                + " 19m holding one in the queue of rule \"queue\" (1/1m burst 20 max-wait 1h), and both rules apply to"
                + " every request there: a request that waits that long runs no longer counted in flight, so"
                + " \"in-flight\" admits more than 20; expected a lease longer than the longest wait plus the longest"
                + " response time, such as \"20 concurrent lease 20m\", or a max-wait of \"queue\" below 1m, got"
                + " \"20 concurrent\"";
    }

    @Test
    void aQueueAnnotationOutlastingTheLeaseOfAConcurrencyAnnotationOfTheMethodStopsStartUp() throws Exception {
        JaxrsServer.Setup setup = new JaxrsServer.Setup();
        setup.classes.add(Resources.QueuedInFlight.class);
        assertThat(deploymentError(setup)).isInstanceOf(io.sluice.core.config.ConfigException.class)
                .hasMessage(queuedLeaseError("io.sluice.jaxrs.Resources$QueuedInFlight.get"));
    }

    @Test
    void aQueueAnnotationOutlastingTheLeaseOfAConfiguredConcurrencyRuleStopsStartUpAndAReloadThatWouldIsRefused()
            throws Exception {
        JaxrsServer.Setup refused = withRules("rules: [{name: in-flight, limit: 20 concurrent}]");
        refused.classes.add(Resources.Queued.class);
        assertThat(deploymentError(refused)).isInstanceOf(io.sluice.core.config.ConfigException.class)
                .hasMessage(queuedLeaseError("io.sluice.jaxrs.Resources$Queued.get"));

        JaxrsServer.Setup setup = withRules("rules: [{name: in-flight, limit: 20 concurrent lease 20m}]");
        setup.classes.add(Resources.Queued.class);
        try (LogCapture log = new LogCapture("io.sluice.http.ReloadingRules");
                JaxrsServer server = start(setup)) {
            server.client().get("/api/queued").then().statusCode(200);
            rewriteRules("rules: [{name: in-flight, limit: 20 concurrent}]");
            server.clock.advance(Duration.ofSeconds(11));
            server.client().get("/api/hello").then().statusCode(200);
            assertThat(server.feature.front().door().rules().rules().get(0).policy().periodMicros())
                    .as("the rules in force stay: their lease").isEqualTo(Duration.ofMinutes(20).toNanos() / 1_000);
            assertThat(log.warnings()).anySatisfy(line -> assertThat(line).contains("changed but is invalid; keeping the"
                    + " previous 1 rule(s) [in-flight]: " + queuedLeaseError("io.sluice.jaxrs.Resources$Queued.get")));
        }
    }

    @Test
    void aQueueAnnotationOutlastingTheLeaseOfAConfiguredConcurrencyRuleOfOtherPathsIsAWarning() throws Exception {
        JaxrsServer.Setup setup = withRules("rules: [{name: in-flight, paths: [/api/hello], limit: 20 concurrent}]");
        setup.classes.add(Resources.Queued.class);
        try (LogCapture log = new LogCapture("io.sluice.jaxrs"); JaxrsServer server = start(setup)) {
            server.client().get("/api/queued").then().statusCode(200);
            assertThat(log.warnings()).containsExactly("Sluice rate limiting (JAX-RS): @RateLimit on io.sluice.jaxrs.Resources$Queued.get: rule \"in-flight\" (20 concurrent):"
                    + " its leases expire after 1m, but a request may wait up to 19m holding one in the queue of rule"
                    + " \"queue\" (1/1m burst 20 max-wait 1h): a request that waits that long runs no longer counted in"
                    + " flight, so \"in-flight\" admits more than 20. Harmless if no request matches both rules (their"
                    + " paths or methods differ). Otherwise set a lease longer than the longest wait plus the longest"
                    + " response time, such as \"20 concurrent lease 20m\", or a max-wait of \"queue\" below 1m");
        }
    }

    @Test
    void aQueueOutlastingTheLeaseInALazilyConfiguredSubResourceIsLoggedAndItsRequestsGoOnWithoutItsAnnotations()
            throws Exception {
        JaxrsServer.Setup setup = new JaxrsServer.Setup();
        setup.classes.add(Resources.QueuedLocator.class);
        try (LogCapture log = new LogCapture("io.sluice.jaxrs"); JaxrsServer server = start(setup)) {
            for (int i = 0; i < 2; i++) {                     // past "1 concurrent"? not applied, and not a 500
                server.client().get("/api/queued-locator/sub").then().statusCode(200).body(equalTo("sub"))
                        .header("RateLimit", (String) null);
            }
            assertThat(log.messages().stream().filter(m -> m.startsWith("SEVERE")).toList()).singleElement()
                    .asString().startsWith("SEVERE io.sluice.jaxrs.RateLimitFeature: @RateLimit annotations of "
                            + "io.sluice.jaxrs.Resources$QueuedInFlightSub.get are not applied: @RateLimit on "
                            + "io.sluice.jaxrs.Resources$QueuedInFlightSub.get: rule \"sub-in-flight\": its leases"
                            + " expire after 1m, but a request may wait up to 19m holding one in the queue of rule"
                            + " \"sub-queue\"")
                    .contains("JAX-RS configured this sub-resource on its first request, after start-up");
        }
    }

    /** Rewrites the rules file of {@link #withRules}, its modification time an hour after the last (no sleeping). */
    private void rewriteRules(String yaml) throws java.io.IOException {
        Path rules = dir.resolve("rules.yaml");
        java.nio.file.attribute.FileTime before = Files.getLastModifiedTime(rules);
        Files.writeString(rules, yaml);
        Files.setLastModifiedTime(rules, java.nio.file.attribute.FileTime.fromMillis(before.toMillis() + 3_600_000));
    }

    @Test
    void shadowModeReportsAnnotationRulesButNeverDenies() throws Exception {
        try (JaxrsServer server = start(new JaxrsServer.Setup().property("sluice.shadow", "true"))) {
            for (int i = 1; i <= 5; i++) {                                          // @RateLimit("3/1h")
                server.client().get("/api/limited/a").then().statusCode(200).header("RateLimit", (String) null)
                        .header("X-Decision-Shadow-Denied", Boolean.toString(i > 3));    // counted: it would deny
            }
        }
    }

    /**
     * A shadow queue ({@code max-wait}) holds no request: on the JAX-RS side, where a queued request waits its turn on
     * its own thread (in real time, an hour here for the second request), each is answered at once.
     */
    @Test
    void aShadowQueueHoldsNoRequestOnItsThread() throws Exception {
        try (JaxrsServer server = start(new JaxrsServer.Setup().property("sluice.limit", "1/1h burst 10 max-wait 2h")
                .property("sluice.shadow", "true"))) {
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            for (int i = 0; i < 3; i++) {
                java.net.http.HttpResponse<String> response = http.send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + server.port() + "/app/api/hello"))
                        .timeout(Duration.ofSeconds(10)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.headers().firstValue("X-Decision-Shadow-Delay")).as("the wait it would have had")
                        .hasValue(Long.toString(i * 3_600_000_000L));
                assertThat(response.headers().firstValue("RateLimit")).as("no headers for a shadow rule").isEmpty();
            }
        }
    }

    @Test
    void aCorsPreflightIsNotCounted() throws Exception {
        try (JaxrsServer server = start(new JaxrsServer.Setup().property("sluice.limit", "1/1m"))) {
            for (int i = 0; i < 3; i++) {
                Response preflight = server.client().header("Origin", "https://app.example")
                        .header("Access-Control-Request-Method", "GET").options("/api/hello");
                assertThat(preflight.statusCode()).isNotEqualTo(429);
                assertThat(preflight.header("RateLimit")).isNull();
            }
            server.client().get("/api/hello").then().statusCode(200).header("X-RateLimit-Remaining", "0");
        }
    }

    @Test
    void aMethodAnnotationAddsItsOwnRuleToTheClassRule() throws Exception {
        try (JaxrsServer server = start(new JaxrsServer.Setup())) {
            server.client().get("/api/limited/b").then().statusCode(200).header("X-Decision-Binding", "Limited.b");
            server.client().get("/api/limited/b").then().statusCode(429).header("RateLimit-Policy", "\"Limited.b\";q=1;w=3600");
            server.client().get("/api/limited/a").then().statusCode(200).header("X-RateLimit-Remaining", "1").header("RateLimit-Policy", startsWith("\"Limited\""));
        }
    }

    @Test
    void aMethodAnnotationReplacesTheClassAnnotationOfTheSameName() throws Exception {
        try (JaxrsServer server = start(new JaxrsServer.Setup())) {
            for (int i = 4; i >= 0; i--) {
                server.client().get("/api/limited/c").then().statusCode(200)
                        .header("RateLimit-Policy", "\"Limited\";q=5;w=3600").header("X-RateLimit-Remaining", Integer.toString(i));
            }
            server.client().get("/api/limited/c").then().statusCode(429);
        }
    }

    @Test
    void principalKeysSeeTheUserOfTheAuthenticationFilter() throws Exception {
        try (JaxrsServer server = start(new JaxrsServer.Setup())) {
            server.client().header("X-Test-User", "alice").get("/api/users").then().statusCode(200);
            server.client().header("X-Test-User", "alice").get("/api/users").then().statusCode(200);
            server.client().header("X-Test-User", "alice").get("/api/users").then().statusCode(429);
            server.client().header("X-Test-User", "bob").get("/api/users").then().statusCode(200)
                    .header("X-RateLimit-Remaining", "1").header("RateLimit-Policy", startsWith("\"per-user\""));
            server.client().get("/api/users").then().statusCode(200).header("RateLimit", (String) null);
        }
    }

    @Test
    void aUserInAnAllowlistedRoleBypassesTheAnnotatedRules() throws Exception {
        try (JaxrsServer server = start(new JaxrsServer.Setup().property("sluice.allowlist-roles", "ops"))) {
            for (int i = 0; i < 4; i++) {
                server.client().header("X-Test-User", "alice").header("X-Test-Role", "ops").get("/api/users").then()
                        .statusCode(200).header("RateLimit", (String) null);
            }
            server.client().header("X-Test-User", "bob").header("X-Test-Role", "user").get("/api/users").then()
                    .statusCode(200);
            server.client().header("X-Test-User", "bob").get("/api/users").then().statusCode(200);
            server.client().header("X-Test-User", "bob").get("/api/users").then().statusCode(429);
        }
    }

    @Test
    void aReferencedRuleOfTheRulesFileAppliesWhereReferencedAtItsOwnOrTheAnnotatedCost() throws Exception {
        JaxrsServer.Setup setup = withRules("""
                rules:
                  - name: exports
                    paths: [/nowhere]
                    limit: 3/1h
                    key: ip
                  - name: everything
                    limit: 100/1h
                """);
        setup.classes.add(Resources.Referencing.class);
        try (JaxrsServer server = start(setup)) {
            server.client().get("/api/exports").then().statusCode(200).header("X-RateLimit-Remaining", "2").header("RateLimit-Policy", startsWith("\"exports\""));
            server.client().get("/api/exports/heavy").then().statusCode(200).header("X-RateLimit-Remaining", "0").header("RateLimit-Policy", startsWith("\"exports\""));
            server.client().get("/api/exports").then().statusCode(429).header("RateLimit-Policy", "\"exports\";q=3;w=3600");
            server.client().get("/api/hello").then().statusCode(200)
                    .header("X-RateLimit-Remaining", "97").header("RateLimit-Policy", startsWith("\"everything\""));        // denied consumed nothing; hello is not counted by exports
        }
    }

    @Test
    void theRulesFileIsReadFromInsideTheWarThroughTheServletContainerInitializer() throws Exception {
        Path war = dir.resolve("war");
        Files.createDirectories(war.resolve("WEB-INF"));
        Files.writeString(war.resolve("WEB-INF/sluice-rules.yaml"), """
                rules:
                  - name: from-the-war
                    paths: [/api/hello]
                    limit: 1/1h
                """);
        JaxrsServer.Setup setup = new JaxrsServer.Setup().property("sluice.rules", "/WEB-INF/sluice-rules.yaml");
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        try (java.net.URLClassLoader warLoader = new java.net.URLClassLoader(new java.net.URL[0], before)) {
            setup.beforeStart = context -> {
                context.setBaseResourceAsPath(war);
                context.setClassLoader(warLoader);                                  // a WAR's class loader of its own
                context.addServletContainerInitializer(new WebAppInitializer());    // as a container finds it in the jar
            };
            try (JaxrsServer server = start(setup)) {
                server.client().get("/api/hello").then().statusCode(200)
                        .header("RateLimit-Policy", "\"from-the-war\";q=1;w=3600");
                server.client().get("/api/hello").then().statusCode(429);
                assertThat(rulesFileSeenWith(warLoader)).isEqualTo(war.resolve("WEB-INF/sluice-rules.yaml").toString());
                assertThat(rulesFileSeenWith(before)).as("outside the WAR's threads").isEqualTo("/WEB-INF/sluice-rules.yaml");
            }
            assertThat(rulesFileSeenWith(warLoader)).as("a stopped application is forgotten: a plain file path again")
                    .isEqualTo("/WEB-INF/sluice-rules.yaml");
        }
    }

    /** @return the name of the source of {@code rules=/WEB-INF/sluice-rules.yaml} on a thread of {@code loader} */
    private static String rulesFileSeenWith(ClassLoader loader) {
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            return WebApps.rulesSources().apply("/WEB-INF/sluice-rules.yaml").name();
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    @Test
    void aTrailingSlashDoesNotStepAroundAPathRule() throws Exception {
        JaxrsServer.Setup setup = withRules("""
                rules:
                  - name: hello
                    paths: [/api/hello]
                    limit: 1/1h
                """);
        try (JaxrsServer server = start(setup)) {
            server.client().get("/api/hello").then().statusCode(200).header("RateLimit-Policy", startsWith("\"hello\""));
            server.client().get("/api/hello/").then().statusCode(429);       // routed to the same method
        }
    }

    @Test
    void aRuleThatCountsByOutcomeCountsOnlyFailedLogins() throws Exception {
        JaxrsServer.Setup setup = withRules("""
                rules:
                  - name: failed-logins
                    paths: [/nowhere]
                    limit: 2/1h
                    algorithm: sliding-log
                    count-status: [401]
                """);
        setup.classes.add(Resources.Login.class);
        try (JaxrsServer server = start(setup)) {
            for (int i = 0; i < 4; i++) {
                server.client().header("X-Password", "secret").post("/api/login").then().statusCode(200);
            }
            server.client().post("/api/login").then().statusCode(401);
            server.client().post("/api/login").then().statusCode(401);
            server.client().header("X-Password", "secret").post("/api/login").then().statusCode(429);
        }
    }

    @Test
    void aDeniedRequestGetsTheSameResponseAsFromTheServletFilter() throws Exception {
        Map<String, String> params = Map.of("limit", "2/1m", "algorithm", "fixed-window");
        JaxrsServer.Setup setup = new JaxrsServer.Setup().property("sluice.limit", "2/1m")
                .property("sluice.algorithm", "fixed-window").property("sluice.exclude", "/plain/**")
                .servletFilter(Map.of("limit", "2/1m", "algorithm", "fixed-window", "exclude", "/api/**"));
        assertThat(params).isNotEmpty();
        try (JaxrsServer server = start(setup)) {
            server.clock.advance(Duration.ofSeconds(45));
            for (int i = 0; i < 2; i++) {
                server.client().get("/plain/x").then().statusCode(200);
                server.client().get("/api/hello").then().statusCode(200);
            }
            Response servlet = server.client().get("/plain/x");
            Response jaxrs = server.client().get("/api/hello");

            jaxrs.then().statusCode(429).header("Retry-After", "15").header("Cache-Control", "no-store")
                    .header("Content-Type", "application/json");
            assertThat(jaxrs.statusLine()).isEqualTo(servlet.statusLine());
            assertThat(headers(jaxrs)).isEqualTo(headers(servlet));
            assertThat(jaxrs.asByteArray()).isEqualTo(servlet.asByteArray());
        }
    }

    @Test
    void theProblemBodyIsTheSameAsFromTheServletFilter() throws Exception {
        JaxrsServer.Setup setup = new JaxrsServer.Setup().property("sluice.limit", "1/1m").property("sluice.body", "problem")
                .property("sluice.exclude", "/plain/**")
                .servletFilter(Map.of("limit", "1/1m", "body", "problem", "exclude", "/api/**"));
        try (JaxrsServer server = start(setup)) {
            server.client().get("/plain/x");
            server.client().get("/api/hello");
            Response servlet = server.client().get("/plain/x");
            Response jaxrs = server.client().get("/api/hello");

            jaxrs.then().statusCode(429).header("Content-Type", "application/problem+json");
            assertThat(headers(jaxrs)).isEqualTo(headers(servlet));
            assertThat(jaxrs.asByteArray()).isEqualTo(servlet.asByteArray());
        }
    }

    @Test
    void aRequestTheServletFilterDecidedIsNotCountedAgain() throws Exception {
        JaxrsServer.Setup setup = new JaxrsServer.Setup().property("sluice.limit", "3/1h")
                .servletFilter(Map.of("limit", "3/1h"));
        try (JaxrsServer server = start(setup)) {
            server.client().get("/api/hello").then().statusCode(200).header("X-RateLimit-Remaining", "2").header("RateLimit-Policy", startsWith("\"per-ip\""));
            server.client().get("/api/hello").then().statusCode(200).header("X-RateLimit-Remaining", "1").header("RateLimit-Policy", startsWith("\"per-ip\""));
            Response third = server.client().get("/api/limited/b");     // per-ip by the filter, Limited and Limited.b here
            third.then().statusCode(200).header("X-Decision-Binding", "per-ip");
            assertThat(third.headers().getValues("X-RateLimit-Remaining")).containsExactly("0");
            server.client().get("/api/hello").then().statusCode(429);
            assertThat(server.feature.front().door().store()).isNotNull();
        }
    }

    @Test
    void annotationRulesStillApplyBehindTheServletFilter() throws Exception {
        JaxrsServer.Setup setup = new JaxrsServer.Setup().servletFilter(Map.of("limit", "100/1h"));
        try (JaxrsServer server = start(setup)) {
            server.client().get("/api/limited/b").then().statusCode(200);
            Response denied = server.client().get("/api/limited/b");
            denied.then().statusCode(429).body("error.context.policy", equalTo("Limited.b"));
            assertThat(denied.headers().getValues("RateLimit-Policy")).containsExactly("\"Limited.b\";q=1;w=3600");
        }
    }

    @Test
    void theFeatureRegisteredByClassReadsItsConfigurationFromJaxrsProperties() throws Exception {
        JaxrsServer.Setup setup = new JaxrsServer.Setup().featureByClass().property("sluice.limit", "1/1h")
                .property("sluice.name", "api");
        try (JaxrsServer server = start(setup)) {
            server.client().get("/api/hello").then().statusCode(200).header("RateLimit-Policy", "\"api\";q=1;w=3600");
            server.client().get("/api/hello").then().statusCode(429);
        }
    }

    /** @return the response's headers without Date, as name: value lines in order */
    private static java.util.List<String> headers(Response r) {
        return r.headers().asList().stream().filter(h -> !h.getName().equalsIgnoreCase("Date"))
                .map(h -> h.getName().toLowerCase(java.util.Locale.ROOT) + ": " + h.getValue()).sorted().toList();
    }
}
