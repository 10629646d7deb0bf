package io.sluice.filter;

import java.util.ArrayList;
import java.util.List;

/** Runs scheduled tasks when the test says their time on the {@link ManualClock} has come. */
final class ManualScheduler implements DelayScheduler {

    private record Task(long dueMicros, Runnable task) {}

    private final ManualClock clock;
    private final List<Task> tasks = new ArrayList<>();

    ManualScheduler(ManualClock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized void schedule(Runnable task, long delayMicros) {
        tasks.add(new Task(clock.nowMicros() + delayMicros, task));
    }

    /** Runs, in due order, every task whose time has come; returns how many ran. */
    int runDue() {
        List<Task> due = new ArrayList<>();
        synchronized (this) {
            tasks.removeIf(t -> t.dueMicros() <= clock.nowMicros() && due.add(t));
        }
        due.sort((a, b) -> Long.compare(a.dueMicros(), b.dueMicros()));
        due.forEach(t -> t.task().run());
        return due.size();
    }

    synchronized int pending() {
        return tasks.size();
    }

    @Override
    public void close() {}
}
