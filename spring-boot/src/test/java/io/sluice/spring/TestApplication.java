package io.sluice.spring;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** The Spring Boot application of the tests: one endpoint, the starter auto-configured from the class path. */
@SpringBootApplication
public class TestApplication {

    @RestController
    static class Hello {

        @GetMapping("/hello")
        String hello() {
            return "hello";
        }
    }
}
