package io.sluice.spring;

import io.sluice.jaxrs.RateLimit;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The Spring Boot application of the tests, the starter auto-configured from the class path: {@code /hello}, and
 * {@code /reports} with {@code @RateLimit} annotations.
 */
@SpringBootApplication
public class TestApplication {

    @RestController
    static class Hello {

        @GetMapping("/hello")
        String hello() {
            return "hello";
        }
    }

    @RestController
    @RateLimit(value = "3/1h", name = "reports")
    static class Reports {

        @GetMapping("/reports")
        String list() {
            return "reports";
        }

        @GetMapping("/reports/export")
        @RateLimit("1/1h")
        String export() {
            return "export";
        }
    }
}
