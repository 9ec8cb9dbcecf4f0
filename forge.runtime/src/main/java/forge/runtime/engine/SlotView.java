package forge.runtime.engine;

import java.util.Objects;

/**
 * One slot as the cache policy ({@link SlotChoice}, {@link PrefixPlan}) sees it: plain values read
 * from the scheduler's state at the moment of a decision. The arrays are the scheduler's own, not
 * copies (a decision is made and acted on before anything changes them).
 *
 * @param id        the slot's sequence id; in a list of views, also its index
 * @param cells     the tokens its KV cells hold, valid below {@code cached}
 * @param cached    how many cells it holds (positions {@code 0..cached-1}; kept after a request ends)
 * @param lastUsed  when a request last started or ended there, on the scheduler's logical clock
 * @param activity  what it does now
 * @param prompt    the prompt of the request it runs; empty when it is free
 * @param prefilled how many tokens of that prompt are computed, in flight or reused
 */
record SlotView(int id, int[] cells, int cached, long lastUsed, Activity activity, int[] prompt, int prefilled) {

    /** What a slot does. */
    enum Activity {
        /** No request: its cells wait for the next prompt that shares their prefix. */
        FREE,
        /** Its request waits for another slot to compute a prefix they share. */
        WAITING,
        /** Its request's prompt is being computed. */
        PREFILLING,
        /** Its request generates, one token per step. */
        DECODING
    }

    private static final int[] NONE = new int[0];

    SlotView {
        Objects.requireNonNull(cells);
        Objects.requireNonNull(activity);
        Objects.requireNonNull(prompt);
        if (cached < 0 || cached > cells.length || prefilled < 0 || prefilled > prompt.length) {
            throw new IllegalArgumentException("slot " + id + ": " + cached + " of " + cells.length + " cells, "
                    + prefilled + " of " + prompt.length + " prompt tokens");
        }
        if ((activity == Activity.FREE) != (prompt.length == 0)) {
            throw new IllegalArgumentException("slot " + id + " is " + activity + " with a prompt of " + prompt.length);
        }
    }

    /** A slot without a request. */
    static SlotView free(int id, int[] cells, int cached, long lastUsed) {
        return new SlotView(id, cells, cached, lastUsed, Activity.FREE, NONE, 0);
    }

    /** How many of the first {@code upTo} tokens of {@code prompt} this slot's cells hold. */
    int cachedPrefix(int[] prompt, int upTo) {
        return commonPrefix(cells, cached, prompt, upTo);
    }

    /** How many of the first {@code upTo} tokens of {@code prompt} this slot's own prompt starts with. */
    int promptPrefix(int[] prompt, int upTo) {
        return commonPrefix(this.prompt, this.prompt.length, prompt, upTo);
    }

    /** The length of the common prefix of {@code a[0, aLength)} and {@code b[0, bLength)}. */
    static int commonPrefix(int[] a, int aLength, int[] b, int bLength) {
        int n = Math.min(aLength, bLength);
        int i = 0;
        while (i < n && a[i] == b[i]) {
            i++;
        }
        return i;
    }
}
