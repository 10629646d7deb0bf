/** The servlet filter ({@link io.sluice.filter.RateLimitFilter}) and the admin servlet. */
module io.sluice.filter {
    requires io.sluice.http;
    requires static jakarta.servlet;

    exports io.sluice.filter;
}
