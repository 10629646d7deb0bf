package io.sluice.examples.docs.enqueue;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** What docs/enqueue.md's listener leaves to the application: this node's name, and the job itself. */
final class Work {

    private Work() {}

    static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "node";
        }
    }

    static void process(String payload) {
        // the application's job: parse the payload (method, path, query, body) and do the work, idempotently
    }
}
