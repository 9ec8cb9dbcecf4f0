package forge.api.backend;

/**
 * The reusable token batch of one {@link InferenceContext}: filled, decoded, cleared, without
 * allocating per token.
 */
public interface TokenBatch {

    /** Empties the batch. */
    void clear();

    /**
     * Adds one token.
     *
     * @param position its position in the sequence
     * @param sequence the sequence (slot) it belongs to
     * @param logits   whether to compute logits for it (the last prompt token, every decode token)
     * @return the token's index in the batch, which {@link TokenSampler#sample(int)} takes
     */
    int add(int token, int position, int sequence, boolean logits);

    /** The number of tokens added since the last {@link #clear()}. */
    int size();

    /** The most tokens the batch can hold. */
    int capacity();
}
