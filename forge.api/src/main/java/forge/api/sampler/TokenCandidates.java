package forge.api.sampler;

/**
 * The candidates for the next token, as a stage sees them: a view over the backend's own array
 * (nothing is copied), valid only during {@link SamplerStage#apply}. Implemented by the backend.
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
}
