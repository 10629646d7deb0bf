package io.sluice.http;

/**
 * Decimal text of header numbers without a new string for the small ones: {@code Retry-After}, {@code t},
 * {@code X-RateLimit-Remaining} of typical limits and delta resets are mostly below {@value #SMALL}.
 */
final class Numbers {

    /** Numbers from 0 up to (excluding) this one have their text prepared: {@value}. */
    static final int SMALL = 1024;

    private static final String[] TEXT = new String[SMALL];

    static {
        for (int i = 0; i < SMALL; i++) {
            TEXT[i] = Integer.toString(i);
        }
    }

    private Numbers() {}

    /** @return {@code Long.toString(n)}, shared for 0 <= n < {@value #SMALL} */
    static String text(long n) {
        return n >= 0 && n < SMALL ? TEXT[(int) n] : Long.toString(n);
    }
}
