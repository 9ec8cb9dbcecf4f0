package forge.runtime.engine;

import forge.api.backend.AdapterScale;
import forge.api.backend.MediaTokens;
import java.util.List;

/**
 * One sequence id of the context and what outlives a request there: the tokens its KV cells
 * hold, the position of each, and when it was last used. The request it runs is the scheduler's
 * business. Engine thread only.
 *
 * <p>Cells {@code [0, cached)} are in the KV cache; a step appends the cells it puts in the batch
 * after them, and the decode either computes them ({@link #computed}) or fails, and then the slot
 * forgets everything ({@link #forget}).
 *
 * <p><b>Cells and positions</b> (see {@code package-info.java}, "Media"): cell {@code i} is the
 * {@code i}-th token of {@link #tokens()}; its position is {@code i} unless a media chunk placed by
 * M-RoPE comes before it, which takes more cells (one per embedding) than positions. The slot keeps,
 * for every cell, the position of the cell after it ({@code ends}), written as cells are appended
 * and copied with them, so {@link #position(int)} is an array read and text needs no allocation.
 */
final class Slot {

    final int id;
    /** {@code tokens[p]} is the token at position {@code p}: valid below {@code cached + inFlight}. */
    private final int[] tokens;
    /**
     * {@code ends[i]} is the position the cell after cell {@code i} takes, were it text: {@code i + 1}
     * but after a media chunk placed by M-RoPE. Valid below {@code cached + inFlight}.
     */
    private final int[] ends;

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
        this.ends = new int[capacity];
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

    /**
     * The position of cell {@code cell} (below {@link #held()}), or with {@code cell == held()} the
     * position the next text token takes: what {@code llama_memory_seq_rm/cp} and a batch are given
     * where the slot counts cells.
     */
    int position(int cell) {
        return cell == 0 ? 0 : ends[cell - 1];
    }

    /** Puts text {@code token} in the next cell; returns its position, for the batch. */
    int append(int token) {
        int cell = cached + inFlight;
        int position = position(cell);
        tokens[cell] = token;
        ends[cell] = position + 1;
        inFlight++;
        return position;
    }

    /**
     * Puts a media chunk in the next cells: its placeholders {@code prompt[start .. start + length)},
     * which advance the position by {@code positions} ({@code length} but with M-RoPE). A chunk is
     * never cut (a prefix never ends inside one), so the cells inside it need only lie between its
     * first position and its end; they get {@code min(j + 1, positions)} after the first, which is
     * the plain {@code j + 1} of a chunk of one position per embedding.
     *
     * @return the chunk's first position, where its decode places it
     */
    int appendMedia(int[] prompt, int start, int length, int positions) {
        int cell = cached + inFlight;
        int position = position(cell);
        for (int j = 0; j < length; j++) {
            tokens[cell + j] = prompt[start + j];
            ends[cell + j] = position + Math.min(j + 1, positions);
        }
        inFlight += length;
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
        System.arraycopy(source.ends, 0, ends, 0, n);
        keep(n);
    }

    /**
     * The KV cache holds {@code restored} in cells {@code 0..restored.length-1} for this slot now,
     * laid out as a prompt whose media chunks are {@code media} would be: a saved state carries its
     * cells' positions but the host cache's entry only their tokens, and the part of it a request
     * keeps is a prefix of that request's prompt, whose chunks say how many positions each takes.
     * Cells past the last chunk that starts before them count one position each, which is right
     * for every cell the request keeps; the rest it removes.
     */
    void restore(int[] restored, List<MediaTokens.Span> media) {
        System.arraycopy(restored, 0, tokens, 0, restored.length);
        int position = 0;
        int cell = 0;
        for (MediaTokens.Span span : media) {
            if (span.end() > restored.length) {
                break;
            }
            for (; cell < span.start(); cell++) {
                ends[cell] = ++position;
            }
            for (int j = 0; j < span.length(); j++) {
                ends[cell + j] = position + Math.min(j + 1, span.positions());
            }
            cell += span.length();
            position += span.positions();
        }
        for (; cell < restored.length; cell++) {
            ends[cell] = ++position;
        }
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
