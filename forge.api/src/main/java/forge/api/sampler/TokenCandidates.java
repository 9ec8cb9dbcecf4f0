package forge.api.sampler;

/**
 * The candidates for the next token, as a stage sees them: a view over the backend's own array
 * (nothing is copied), valid only during {@link SamplerStage#apply}. Implemented by the backend;
 * {@link #over} gives a stage's tests candidates of their own.
 */
public interface TokenCandidates {

    /** How many candidates are left. */
    int size();

    /** The token id of candidate {@code i}, {@code 0 <= i < size()}. */
    int token(int i);

    /** The logit of candidate {@code i}; {@link Float#NEGATIVE_INFINITY} when it is banned. */
    float logit(int i);

    /**
     * Sets the logit of candidate {@code i}.
     *
     * @throws IllegalArgumentException for NaN or {@code +Infinity}, which no later stage could
     *                                  sample from: the request fails naming the stage
     */
    void logit(int i, float logit);

    /** Bans candidate {@code i}: it will not be chosen. */
    default void ban(int i) {
        logit(i, Float.NEGATIVE_INFINITY);
    }

    /**
     * Candidate {@code i} is token {@code i} with logit {@code logits[i]}: a view over the array,
     * which a stage's changes write through to (what a stage's tests read back).
     */
    static TokenCandidates over(float[] logits) {
        return new TokenCandidates() {
            @Override
            public int size() {
                return logits.length;
            }

            @Override
            public int token(int i) {
                return i;
            }

            @Override
            public float logit(int i) {
                return logits[i];
            }

            @Override
            public void logit(int i, float logit) {
                if (Float.isNaN(logit) || logit == Float.POSITIVE_INFINITY) {
                    throw new IllegalArgumentException("logit " + logit + " for token " + i);
                }
                logits[i] = logit;
            }
        };
    }
}
