package io.sluice.examples.rulesfile;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;

/**
 * Stands for the application's own API-key lookup: it puts the caller's plan into request attribute {@code plan},
 * where the rules file's {@code tiers: by: attribute:plan} finds it. Declared before the rate-limit filter.
 * Here, keys starting with {@code pro-} are on the pro plan and all other keys on the free plan.
 */
public class PlanFilter implements Filter {

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        String apiKey = ((HttpServletRequest) req).getHeader("X-Api-Key");
        if (apiKey != null) {
            req.setAttribute("plan", apiKey.startsWith("pro-") ? "pro" : "free");
        }
        chain.doFilter(req, res);
    }
}
