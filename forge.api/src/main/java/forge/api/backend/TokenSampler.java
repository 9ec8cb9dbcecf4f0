package forge.api.backend;

/**
 * A sampler chain for one sequence, built from {@link forge.api.sampler.SamplingParams} and run
 * in native code. Confined to its context's thread.
 */
public interface TokenSampler extends AutoCloseable {

    /**
     * Samples the next token from the logits at {@code batchIndex} of the last decode, and
     * accepts it into the chain's state (penalties, grammar).
     */
    int sample(int batchIndex);

    /** Feeds a token the chain did not sample (a prompt token) into its state, such as penalties. */
    void accept(int token);

    @Override
    void close();
}
