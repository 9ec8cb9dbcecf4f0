package forge.http.server;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The one id scheme of everything this server names for a client (responses, messages, output
 * items, tool calls, incidents): the kind's own prefix, as each API spells it ({@code chatcmpl-},
 * {@code cmpl-}, {@code msg_}, {@code resp_}, {@code rs_}, {@code fc_}, {@code ctc_}, {@code call_},
 * {@code toolu_}), then 63 random bits in hex. Ids name, they do not secure: nothing is looked up
 * by an id a client could not have been given.
 */
final class Ids {

    private Ids() {}

    /** A fresh id of the kind {@code prefix} names (empty for a bare one). */
    static String next(String prefix) {
        return prefix + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }
}
