package forge.runtime.engine;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A submitted generation, seen from the request's side: its events, and a way to cancel it.
 * The engine thread offers events without ever blocking; the request's (virtual) thread takes them.
 */
public final class Generation {

    private final GenerationRequest request;
    private final BlockingQueue<GenerationEvent> events = new LinkedBlockingQueue<>();
    private final long submittedNanos = System.nanoTime();
    private volatile boolean cancelled;

    Generation(GenerationRequest request) {
        this.request = request;
    }

    public GenerationRequest request() {
        return request;
    }

    /** Waits for the next event. */
    public GenerationEvent next() throws InterruptedException {
        return events.take();
    }

    /** Waits up to {@code timeout} for the next event; null when none came. */
    public GenerationEvent next(long timeout, TimeUnit unit) throws InterruptedException {
        return events.poll(timeout, unit);
    }

    /**
     * Asks the engine to stop this generation: its slot is freed at the next step and a
     * {@link GenerationEvent.Done} with {@link FinishReason#CANCELLED} follows.
     */
    public void cancel() {
        cancelled = true;
    }

    public boolean cancelled() {
        return cancelled;
    }

    long submittedNanos() {
        return submittedNanos;
    }

    void emit(GenerationEvent event) {
        events.add(event);
    }
}
