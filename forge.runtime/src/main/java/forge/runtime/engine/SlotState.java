package forge.runtime.engine;

import java.util.Locale;

/** What a slot is doing, as {@code GET /slots} shows it. */
public enum SlotState {
    /** No request; its KV cells stay cached for the next prompt that shares their prefix. */
    IDLE,
    /** Reading a prompt (or waiting for another slot to finish computing a prefix they share). */
    PREFILL,
    /** Generating, one token per step. */
    DECODE;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
