package forge.runtime.engine;

import java.util.Locale;

/** Why a generation ended, as OpenAI's {@code finish_reason} spells it. */
public enum FinishReason {
    /** An end-of-generation token or a stop string. */
    STOP,
    /** {@code max_tokens}, or the slot's context is full. */
    LENGTH,
    /** The client went away. */
    CANCELLED;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
