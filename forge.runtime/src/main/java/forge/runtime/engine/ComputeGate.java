package forge.runtime.engine;

import forge.api.backend.InferenceContext;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Decodes in turn when the process's contexts together want more CPU threads than there are
 * cores: every engine and embedder of every model passes here.
 *
 * <p>By default each context computes with as many threads as the machine has cores, and ggml's
 * threads wait for each other at every operation by spinning. Two contexts decoding at once then
 * put twice as many spinning threads on the cores, and each operation waits for a thread the
 * scheduler took away: measured on the 2-core test machine, two tiny models served together
 * answered 138 requests in 40 s of mixed load, against 4,305 with this gate. Taking turns step by
 * step (a fair lock) gives each model its share instead, and a context that hands the turn to a
 * waiting one tells its backend it is idle, so its workers sleep instead of polling for their
 * next graph while the other computes. Contexts whose threads fit the cores together (one model;
 * or {@code -t 1} for each of two models on two cores) decode freely, side by side.
 */
final class ComputeGate {
    /** The gate of this process, for its cores. */
    static final ComputeGate PROCESS = new ComputeGate(Runtime.getRuntime().availableProcessors());

    private final int cores;
    private final AtomicInteger threads = new AtomicInteger();
    private final ReentrantLock turn = new ReentrantLock(true);

    ComputeGate(int cores) {
        this.cores = cores;
    }

    /** A context computing with {@code n} threads comes; close what this returns when it goes. */
    Entry enter(int n) {
        threads.addAndGet(n);
        return new Entry(n);
    }

    /** {@code context.decode()}, in turn with the other contexts when they do not all fit the cores. */
    void decode(InferenceContext context) {
        compute(context, context::decode);
    }

    /**
     * {@code work} on {@code context}'s thread (a decode, or a media chunk's encode and decode), in
     * turn with the other contexts when they do not all fit the cores.
     */
    void compute(InferenceContext context, Runnable work) {
        if (threads.get() <= cores) {
            work.run();
            return;
        }
        turn.lock();
        try {
            work.run();
        } finally {
            if (turn.hasQueuedThreads()) {
                context.idle();
            }
            turn.unlock();
        }
    }

    /** A context's threads counted by the gate until it is closed. */
    final class Entry implements AutoCloseable {
        private final int n;
        private boolean closed;

        private Entry(int n) {
            this.n = n;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                threads.addAndGet(-n);
            }
        }
    }
}
