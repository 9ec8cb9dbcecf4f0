package forge.api.sampler;

/**
 * One stage of one sequence's sampler chain, made by {@link SamplerProvider#create}. Confined to
 * the engine's thread, which calls it between decodes; never shared between sequences, so it may
 * keep its state in plain fields.
 */
@FunctionalInterface
public interface SamplerStage {

    /**
     * Changes the candidates' logits for the next token: lower one to make it less likely, set it
     * to {@link Float#NEGATIVE_INFINITY} to ban it ({@link TokenCandidates#ban}). Stages before
     * this one may have dropped candidates; the array may or may not be sorted.
     */
    void apply(TokenCandidates candidates);

    /** The token the chain chose and the sequence now continues with. Prompt tokens are not passed. */
    default void accept(int token) {}

    /** Forget everything seen so far: the sequence starts again. */
    default void reset() {}
}
