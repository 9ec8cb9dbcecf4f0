package forge.runtime.engine;

import java.util.Objects;

/**
 * Where an engine stands, for {@code /health} and for refusing work while it cannot take it.
 *
 * @param state    running, failed or closed
 * @param reason   why it failed (the error that ended its context); empty while running
 * @param retrying whether a failed engine is recreating its context (new requests get 503 meanwhile)
 * @param restarts how many times its context was recreated after a failure
 */
public record EngineHealth(State state, String reason, boolean retrying, int restarts) {

    /** An engine's states. */
    public enum State {
        /** Serving. */
        RUNNING,
        /** Its context failed: recreating it ({@link #retrying}) or given up. */
        FAILED,
        /** Closed by its owner. */
        CLOSED
    }

    public EngineHealth {
        Objects.requireNonNull(state);
        Objects.requireNonNull(reason);
    }

    static EngineHealth running(int restarts) {
        return new EngineHealth(State.RUNNING, "", false, restarts);
    }
}
