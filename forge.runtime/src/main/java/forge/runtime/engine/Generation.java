package forge.runtime.engine;

import forge.api.backend.MediaTokens;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A submitted generation, seen from the request's side: its events, and a way to cancel it.
 * The engine thread offers events without ever blocking; the request's (virtual) thread takes them.
 *
 * <p>One consumer per generation. Waking it costs the engine thread (measured: 0.1 to 0.8 ms per
 * token on two cores, where the woken thread displaces the engine's), so a consumer that collects
 * the whole answer says so with {@link #deferText}: text events then queue without waking it, and
 * it is woken for the events that end the generation (or finds the text when it polls on its own).
 */
public final class Generation {

    private final GenerationRequest request;
    private final ConcurrentLinkedQueue<GenerationEvent> events = new ConcurrentLinkedQueue<>();
    private final long submittedNanos = System.nanoTime();
    private volatile boolean cancelled;
    /** The consumer while it is parked waiting for an event, else null. */
    private volatile Thread waiter;

    private volatile boolean deferText;

    /** The engine's reference to the request's media, dropped at its end; null when there is none or it ended. */
    private final AtomicReference<MediaTokens> media = new AtomicReference<>();

    /** Takes the engine's reference to the request's media, which {@link #emit} drops with the last event. */
    Generation(GenerationRequest request) {
        this.request = request;
        if (request.media() != null) {
            media.set(request.media().retain());
        }
    }

    public GenerationRequest request() {
        return request;
    }

    /** Waits for the next event. */
    public GenerationEvent next() throws InterruptedException {
        return await(false, 0);
    }

    /** Waits up to {@code timeout} for the next event; null when none came. */
    public GenerationEvent next(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        return nanos <= 0 ? events.poll() : await(true, System.nanoTime() + nanos);
    }

    /**
     * Tells the engine that this generation's consumer wants the answer whole, not token by token:
     * text events no longer wake it. Call from the consumer; a non-streamed response does.
     */
    public void deferText() {
        deferText = true;
    }

    private GenerationEvent await(boolean timed, long deadline) throws InterruptedException {
        while (true) {
            GenerationEvent e = events.poll();
            if (e != null) {
                return e;
            }
            waiter = Thread.currentThread();
            try {
                // Checked again after announcing the wait: an event offered in between is not missed,
                // since emit() reads the waiter after adding to the queue.
                e = events.poll();
                if (e != null) {
                    return e;
                }
                if (!timed) {
                    LockSupport.park(this);
                } else {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return events.poll();
                    }
                    LockSupport.parkNanos(this, left);
                }
            } finally {
                waiter = null;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
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
        if (event instanceof GenerationEvent.Done || event instanceof GenerationEvent.Failed) {
            // the engine is done with the media: its last use (an encode) returned before this event
            MediaTokens held = media.getAndSet(null);
            if (held != null) {
                held.close();
            }
        }
        events.add(event);
        if (deferText && event instanceof GenerationEvent.Text) {
            return;
        }
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }
}
