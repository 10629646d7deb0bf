/** Decision counters, store timers and the circuit gauge on a Micrometer {@code MeterRegistry} (the application's). */
module io.sluice.micrometer {
    requires transitive io.sluice.core;
    requires static micrometer.core;

    exports io.sluice.micrometer;
}
