package forge.runtime.engine;

/**
 * Speculative decoding: a draft of the tokens likely to follow is computed with the sampled token
 * in the same decode, and kept as far as the sampler chain, position by position, samples them
 * again. The draft comes from one of two sources:
 * <ul>
 * <li><b>N-gram lookup</b> (llama-server's {@code --spec-type ngram-simple}): the last
 *     {@code ngramSize} tokens of the request's history (prompt, output and the token just sampled)
 *     are looked up earlier in that history; the tokens that followed the latest earlier occurrence
 *     are the draft.</li>
 * <li><b>A draft model</b> ({@code model}; llama-server's {@code --model-draft}, type
 *     {@code draft-simple}): a small model with a compatible vocabulary, run greedily in a context
 *     of its own ({@code Drafter}), writes up to {@code draftMax} tokens, and stops early where its
 *     top token's probability among its ten best is below {@code pMin}.</li>
 * </ul>
 *
 * @param ngramSize tokens matched ({@code --spec-ngram-simple-size-n}, llama.cpp's default 12)
 * @param draftMax  the most tokens drafted per step ({@code --spec-draft-n-max} /
 *                  {@code --draft-max}); 0 turns speculation off
 * @param draftMin  a shorter draft is not proposed ({@code --spec-draft-n-min} / {@code --draft-min})
 * @param pMin      a draft model's draft ends before a token whose probability is below this
 *                  ({@code --spec-draft-p-min}; llama.cpp's default 0)
 * @param model     whether the draft comes from the engine's draft model rather than n-gram lookup
 */
public record Speculation(int ngramSize, int draftMax, int draftMin, float pMin, boolean model) {

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
    /** llama.cpp's {@code speculative.draft.n_max}: a draft model's longest draft by default. */
    public static final int DEFAULT_MODEL_DRAFT_MAX = 3;

    /** N-gram drafting. */
    public Speculation(int ngramSize, int draftMax, int draftMin) {
        this(ngramSize, draftMax, draftMin, 0f, false);
    }

    /** Drafting with the engine's draft model, greedily, up to {@code draftMax} tokens of probability at least {@code pMin}. */
    public static Speculation draftModel(int draftMax, int draftMin, float pMin) {
        return new Speculation(DEFAULT_NGRAM, draftMax, draftMin, pMin, true);
    }

    /** These sizes, drafted by the draft model (a request's {@code speculative.*} on an engine that has one). */
    public Speculation onDraftModel() {
        return model ? this : new Speculation(ngramSize, draftMax, draftMin, pMin, true);
    }

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
        if (!(pMin >= 0f && pMin <= 1f)) {
            throw new IllegalArgumentException("the draft's minimum probability must be 0 to 1: " + pMin);
        }
    }

    /** Whether drafts are proposed at all. */
    public boolean enabled() {
        return draftMax > 0;
    }

    /** llama-server's name of what is on, for {@code /props}: {@code ngram-simple}, {@code draft-simple} or {@code none}. */
    public String type() {
        return !enabled() ? "none" : model ? "draft-simple" : "ngram-simple";
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
