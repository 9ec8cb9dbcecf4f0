package forge.runtime.engine;

import forge.api.ForgeException;

/**
 * The engine refused a request before generating anything. {@link #code()} says why, in OpenAI's
 * terms, so the HTTP layer can answer with the right status.
 */
public final class EngineException extends ForgeException {

    /** Why a request was refused. */
    public enum Code {
        /** Prompt plus requested tokens do not fit the slot's context (400 {@code context_length_exceeded}). */
        CONTEXT_LENGTH_EXCEEDED,
        /** A logit bias names a token the model's vocabulary does not have (400, param {@code logit_bias}). */
        INVALID_LOGIT_BIAS,
        /** The admission queue is full (503, retry later). */
        QUEUE_FULL,
        /** The engine is shutting down or failed to start (503). */
        UNAVAILABLE
    }

    private final Code code;

    public EngineException(Code code, String message) {
        super(message);
        this.code = code;
    }

    public EngineException(Code code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public Code code() {
        return code;
    }
}
