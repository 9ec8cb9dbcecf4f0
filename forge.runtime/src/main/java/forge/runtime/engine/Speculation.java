package forge.runtime.engine;

/**
 * N-gram (prompt-lookup) speculative decoding, as llama-server's {@code --spec-type ngram-simple}:
 * while a request decodes, the last {@code ngramSize} tokens of its history (prompt, output and
 * the token just sampled) are looked up earlier in that history; the tokens that followed the
 * latest earlier occurrence are proposed as a draft, computed with the sampled token in the same
 * decode, and kept as far as the sampler chain, position by position, samples them again.
 *
 * @param ngramSize tokens matched ({@code --spec-ngram-simple-size-n}, llama.cpp's default 12)
 * @param draftMax  the most tokens drafted per step ({@code --spec-draft-n-max} /
 *                  {@code --draft-max}); 0 turns speculation off
 * @param draftMin  a shorter draft is not proposed ({@code --spec-draft-n-min} / {@code --draft-min})
 */
public record Speculation(int ngramSize, int draftMax, int draftMin) {

    /** llama.cpp's {@code ngram_simple.size_n}. */
    public static final int DEFAULT_NGRAM = 12;
    /** llama.cpp's {@code ngram_simple.size_m}: the longest draft ngram-simple proposes. */
    public static final int DEFAULT_DRAFT_MAX = 48;
    /** No speculation (the default, as llama-server's). */
    public static final Speculation OFF = new Speculation(DEFAULT_NGRAM, 0, 0);
    /** N-gram drafting with llama.cpp's defaults. */
    public static final Speculation NGRAM = new Speculation(DEFAULT_NGRAM, DEFAULT_DRAFT_MAX, 0);
    /** The most tokens one draft may hold, as llama.cpp's flags allow. */
    public static final int LIMIT = 1024;

    public Speculation {
        if (ngramSize < 1 || ngramSize > LIMIT) {
            throw new IllegalArgumentException("the n-gram size must be 1 to " + LIMIT + ": " + ngramSize);
        }
        if (draftMax < 0 || draftMax > LIMIT) {
            throw new IllegalArgumentException("the draft maximum must be 0 (off) to " + LIMIT + ": " + draftMax);
        }
        if (draftMin < 0 || draftMin > draftMax) {
            throw new IllegalArgumentException(
                    "the draft minimum must be 0 to the draft maximum (" + draftMax + "): " + draftMin);
        }
    }

    /** Whether drafts are proposed at all. */
    public boolean enabled() {
        return draftMax > 0;
    }

    /** llama-server's name of what is on, for {@code /props}: {@code ngram-simple} or {@code none}. */
    public String type() {
        return enabled() ? "ngram-simple" : "none";
    }

    /**
     * Proposes a draft to follow {@code history[0..length)}: finds the latest earlier occurrence of
     * its last {@link #ngramSize} tokens and copies what followed it into {@code draft}, at most
     * {@code max} tokens (and at most {@code draft.length}). Allocates nothing: it runs every step
     * of every speculating request.
     *
     * @return the tokens proposed; 0 when there is no occurrence, or what follows it is shorter
     *         than {@link #draftMin} (or empty)
     */
    int propose(int[] history, int length, int max, int[] draft) {
        int n = ngramSize;
        max = Math.min(max, Math.min(draftMax, draft.length));
        if (max <= 0 || max < draftMin || length <= n) {
            return 0;
        }
        int pattern = length - n;
        // Latest occurrence first: what the model wrote most recently is the likeliest to repeat.
        for (int start = pattern - 1; start >= 0; start--) {
            int k = 0;
            while (k < n && history[start + k] == history[pattern + k]) {
                k++;
            }
            if (k == n) {
                int from = start + n;
                int count = Math.min(max, length - from);
                if (count < Math.max(1, draftMin)) {
                    return 0;
                }
                System.arraycopy(history, from, draft, 0, count);
                return count;
            }
        }
        return 0;
    }
}
