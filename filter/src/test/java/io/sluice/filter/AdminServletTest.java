package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AdminServletTest {

    private static ServletConfig config(Map<String, String> parameters) {
        return new ServletConfig() {
            @Override
            public String getServletName() {
                return "sluice-admin";
            }

            @Override
            public ServletContext getServletContext() {
                return null;
            }

            @Override
            public String getInitParameter(String name) {
                return parameters.get(name);
            }

            @Override
            public Enumeration<String> getInitParameterNames() {
                return Collections.enumeration(parameters.keySet());
            }
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"*", "**", " ** "})
    void aRoleThatEveryLoginHasIsRefusedAtStartUp(String role) {
        assertThatThrownBy(() -> new AdminServlet().init(config(Map.of("role", role))))
                .isInstanceOf(ServletException.class).hasMessageContaining("role=\"" + role.trim() + "\"")
                .hasMessageContaining("any authenticated user");
    }

    @Test
    void aNamedRoleAndTheDefaultAreAccepted() {
        assertThatCode(() -> new AdminServlet().init(config(Map.of("role", "ops")))).doesNotThrowAnyException();
        assertThatCode(() -> new AdminServlet().init(config(Map.of()))).doesNotThrowAnyException();
    }
}
