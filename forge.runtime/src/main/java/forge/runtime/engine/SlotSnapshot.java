package forge.runtime.engine;

import java.util.Objects;

/**
 * One slot as the engine last published it.
 *
 * @param id           the slot's sequence id
 * @param state        what it is doing
 * @param cachedTokens tokens whose KV cells this slot's sequence holds (kept after a request ends)
 * @param requestId    the request it runs; empty when idle
 * @param promptTokens the running request's prompt size; 0 when idle
 * @param reusedTokens prompt tokens of the running request taken from the cache instead of computed
 * @param generated    tokens generated so far for the running request
 * @param restoredTokens of its reused tokens, those restored from the host prompt cache
 */
public record SlotSnapshot(
        int id,
        SlotState state,
        int cachedTokens,
        String requestId,
        int promptTokens,
        int reusedTokens,
        int generated,
        int restoredTokens) {
    public SlotSnapshot {
        Objects.requireNonNull(state);
        Objects.requireNonNull(requestId);
    }
}
