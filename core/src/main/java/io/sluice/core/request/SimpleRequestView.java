package io.sluice.core.request;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** A request view built by hand: for the programmatic API, examples and tests. */
public final class SimpleRequestView implements RequestView {

    private final String method;
    private final String path;
    private final Map<String, List<String>> headers;
    private final String remoteAddress;
    private final String principal;
    private final Set<String> roles;
    private final Map<String, Object> attributes;
    private final Map<String, String> query;

    private SimpleRequestView(Builder b) {
        this.method = b.method;
        this.path = b.path;
        this.headers = Map.copyOf(b.headers);
        this.remoteAddress = b.remoteAddress;
        this.principal = b.principal;
        this.roles = Set.copyOf(b.roles);
        this.attributes = Map.copyOf(b.attributes);
        this.query = Map.copyOf(b.query);
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public String header(String name) {
        List<String> values = headers(name);
        return values.isEmpty() ? null : values.get(0);
    }

    @Override
    public List<String> headers(String name) {
        return headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
    }

    @Override
    public String remoteAddress() {
        return remoteAddress;
    }

    @Override
    public String principal() {
        return principal;
    }

    @Override
    public boolean isUserInRole(String role) {
        return principal != null && roles.contains(role);
    }

    @Override
    public Object attribute(String name) {
        return attributes.get(name);
    }

    @Override
    public String queryParameter(String name) {
        return query.get(name);
    }

    /** Builds a {@link SimpleRequestView}. */
    public static final class Builder {
        private final String method;
        private final String path;
        private final Map<String, List<String>> headers = new HashMap<>();
        private String remoteAddress = "127.0.0.1";
        private String principal;
        private final Set<String> roles = new HashSet<>();
        private final Map<String, Object> attributes = new HashMap<>();
        private final Map<String, String> query = new HashMap<>();

        Builder(String method, String path) {
            this.method = method.toUpperCase(Locale.ROOT);
            this.path = path;
        }

        public Builder header(String name, String value) {
            headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(value);
            return this;
        }

        public Builder remoteAddress(String address) {
            this.remoteAddress = address;
            return this;
        }

        public Builder principal(String name) {
            this.principal = name;
            return this;
        }

        /** The authenticated user's roles ({@link RequestView#isUserInRole}); a principal is needed for them to count. */
        public Builder roles(String... names) {
            roles.addAll(List.of(names));
            return this;
        }

        public Builder attribute(String name, Object value) {
            attributes.put(name, value);
            return this;
        }

        public Builder query(String name, String value) {
            query.put(name, value);
            return this;
        }

        public SimpleRequestView build() {
            headers.replaceAll((k, v) -> List.copyOf(v));
            return new SimpleRequestView(this);
        }
    }
}
