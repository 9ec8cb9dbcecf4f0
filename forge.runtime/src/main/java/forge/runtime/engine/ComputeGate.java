package forge.runtime.engine;

import forge.api.backend.InferenceContext;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One decode at a time across the process: every engine and embedder of every model passes here.
 *
 * <p>Each context computes with as many threads as the machine has cores (the default), and
 * ggml's threads wait for each other at every operation by spinning. Two contexts decoding at
 * once put twice as many spinning threads on the cores, and each operation then waits for a
 * thread the scheduler took away: measured on the 2-core test machine, two tiny models served
 * together answered 138 requests in 40 s of mixed load, against 4,305 with this gate. Taking
 * turns step by step (a fair lock) gives each model its share instead. A context that hands the
 * turn to a waiting one also tells its backend it is idle, so its workers sleep instead of polling
 * for their next graph while the other computes. With one model the lock is never contended.
 */
final class ComputeGate {
    private static final ReentrantLock TURN = new ReentrantLock(true);

    private ComputeGate() {
    }

    /** {@code context.decode()} in turn with every other context of the process. */
    static void decode(InferenceContext context) {
        TURN.lock();
        try {
            context.decode();
        } finally {
            if (TURN.hasQueuedThreads()) {
                context.idle();
            }
            TURN.unlock();
        }
    }
}
