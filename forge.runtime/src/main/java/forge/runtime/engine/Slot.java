package forge.runtime.engine;

import forge.api.backend.AdapterScale;
import java.util.List;

/**
 * One sequence id of the context and what outlives a request there: the tokens its KV cells
 * hold, and when it was last used. The request it runs is the scheduler's business. Engine
 * thread only.
 *
 * <p>Positions {@code [0, cached)} are in the KV cache; a step appends the positions it puts in
 * the batch after them, and the decode either computes them ({@link #computed}) or fails, and
 * then the slot forgets everything ({@link #forget}).
 */
final class Slot {

    final int id;
    /** {@code tokens[p]} is the token at position {@code p}: valid below {@code cached + inFlight}. */
    private final int[] tokens;

    private int cached;
    /** Positions after {@code cached} in the batch being decoded. */
    private int inFlight;
    /** When a request last started or ended here, on the scheduler's logical clock. */
    long lastUsed;
    /** The LoRA adapters (with their scales) its cells were computed with: cells of one set are no prefix for another. */
    List<AdapterScale> adapters = List.of();

    Slot(int id, int capacity) {
        this.id = id;
        this.tokens = new int[capacity];
    }

    /** The cells this slot's sequence holds in the KV cache. */
    int cached() {
        return cached;
    }

    /** The cells this slot holds with those of the batch in flight: what it takes from a shared pool. */
    int held() {
        return cached + inFlight;
    }

    /** Whether this step's batch has positions of this slot. */
    boolean inBatch() {
        return inFlight > 0;
    }

    /** Puts {@code token} at the next position; returns that position, for the batch. */
    int append(int token) {
        int position = cached + inFlight;
        tokens[position] = token;
        inFlight++;
        return position;
    }

    /** The decode computed what this step appended: it is in the KV cache now. */
    void computed() {
        cached += inFlight;
        inFlight = 0;
    }

    /** The KV cache holds the first {@code n} of this slot's cells, and nothing after them. */
    void keep(int n) {
        cached = n;
        inFlight = 0;
    }

    /** The KV cache holds the first {@code n} of {@code source}'s cells for this slot now. */
    void copyFrom(Slot source, int n) {
        System.arraycopy(source.tokens, 0, tokens, 0, n);
        keep(n);
    }

    /** The KV cache holds {@code restored} at positions {@code 0..restored.length-1} for this slot now. */
    void restore(int[] restored) {
        System.arraycopy(restored, 0, tokens, 0, restored.length);
        keep(restored.length);
    }

    /** The tokens of its cells, by position: valid below {@link #cached()}. The slot's own array. */
    int[] tokens() {
        return tokens;
    }

    /** The KV cache holds none of this slot's cells (they were removed after a failure). */
    void forget() {
        keep(0);
    }

    /** This slot as the cache policy sees it, with the request it runs ({@code null} when free). */
    SlotView view(ActiveRequest running) {
        return view(running, true);
    }

    /**
     * This slot as the cache policy sees it for a request of another adapter set when
     * {@code sameAdapters} is false: its cells are no prefix of that request's (they hold nothing for
     * it), and a request of its own is no leader to wait for (it shows as decoding).
     */
    SlotView view(ActiveRequest running, boolean sameAdapters) {
        if (!sameAdapters) {
            return running == null
                    ? SlotView.free(id, tokens, 0, lastUsed)
                    : new SlotView(
                            id, tokens, 0, lastUsed, SlotView.Activity.DECODING, running.prompt, running.prefilled);
        }
        if (running == null) {
            return SlotView.free(id, tokens, cached, lastUsed);
        }
        SlotView.Activity activity = running.waiting != null
                ? SlotView.Activity.WAITING
                : running.decoding() ? SlotView.Activity.DECODING : SlotView.Activity.PREFILLING;
        return new SlotView(id, tokens, cached, lastUsed, activity, running.prompt, running.prefilled);
    }
}
