package com.example.greetings;

import io.sluice.jaxrs.RateLimit;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Every request is limited by {@code sluice.limit} in application.yml (5 per minute per client);
 * {@code /greetings/{name}} also by its own {@code @RateLimit}: 2 per minute per client, as on a JAX-RS resource
 * method.
 */
@RestController
public class GreetingController {

    @GetMapping("/greetings")
    public String hello() {
        return "Hello!";
    }

    @GetMapping("/greetings/{name}")
    @RateLimit(value = "2/1m", name = "personal-greetings")
    public String hello(@PathVariable String name) {
        return "Hello, " + name + "!";
    }
}
