package forge.runtime.engine;

import forge.api.backend.LoraAdapter;
import java.util.List;
import java.util.Set;

/**
 * The engine's state and counters, published by the engine thread as one immutable value (on
 * every state change, and at most every {@value Engine#SNAPSHOT_INTERVAL_MS} ms while it runs):
 * readers such as {@code GET /slots} and {@code GET /metrics} take no lock and never slow a step.
 *
 * @param slots           every slot
 * @param prefilledTokens prompt tokens computed since the engine started
 * @param reusedTokens    prompt tokens taken from the KV cache (the slot's own, or copied from another slot)
 * @param prefixCopies    prefixes shared from one slot to another ({@code llama_memory_seq_cp})
 * @param prefixWaits     requests that waited for another slot to compute a prefix they share
 * @param kvCellsUsed     KV cells the slots hold (each slot has its own KV stream, so a copied prefix counts in both)
 * @param kvCells         KV cells of the context
 * @param restoredTokens  prompt tokens restored from the host prompt cache (counted in {@code reusedTokens} too)
 * @param cacheSaves      slot states saved into the host prompt cache
 * @param cacheRestores   slot states restored from it
 * @param draftTokens     tokens drafted by speculative decoding (llama-server's
 *                        {@code spec_decode_num_draft_tokens_total})
 * @param draftAccepted   of those, the ones accepted ({@code spec_decode_num_accepted_tokens_total})
 * @param draftSteps      decodes that verified a draft ({@code spec_decode_num_drafts_total})
 * @param runningAdapters the LoRA adapters of the running requests
 * @param mediaEncodes    media chunks (images) encoded by the projector: one per chunk that no
 *                        slot and no prompt cache entry held already
 * @param mediaTokens     the embeddings those encodes decoded (counted in {@code prefilledTokens} too)
 */
public record EngineSnapshot(
        List<SlotSnapshot> slots,
        long prefilledTokens,
        long reusedTokens,
        long prefixCopies,
        long prefixWaits,
        int kvCellsUsed,
        int kvCells,
        long restoredTokens,
        long cacheSaves,
        long cacheRestores,
        long draftTokens,
        long draftAccepted,
        long draftSteps,
        Set<LoraAdapter> runningAdapters,
        long mediaEncodes,
        long mediaTokens) {
    public EngineSnapshot {
        slots = List.copyOf(slots);
        runningAdapters = Set.copyOf(runningAdapters);
    }

    /** The snapshot of an engine that has not run a step: no slots, no counters, no KV cells. */
    public static EngineSnapshot empty() {
        return new EngineSnapshot(List.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Set.of(), 0, 0);
    }

    /**
     * KV cells held by the slots that are running a request. A slot that has finished keeps its
     * cells for the next request's prefix, but they are the first to be overwritten: like vLLM's
     * cached blocks with no running request, they count as free.
     */
    public int kvCellsRunning() {
        int n = 0;
        for (SlotSnapshot s : slots) {
            if (s.state() != SlotState.IDLE) {
                n += s.cachedTokens();
            }
        }
        return n;
    }

    /** Slots running a request. */
    public int busySlots() {
        int n = 0;
        for (SlotSnapshot s : slots) {
            if (s.state() != SlotState.IDLE) {
                n++;
            }
        }
        return n;
    }
}
