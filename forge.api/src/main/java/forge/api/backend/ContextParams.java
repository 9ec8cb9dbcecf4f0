package forge.api.backend;

import java.util.Objects;

/**
 * How to create an inference context.
 *
 * @param contextSize  total KV cells shared by all sequences; 0 means the model's training context
 * @param batchSize    the most tokens one {@link InferenceContext#decode()} may carry
 * @param ubatchSize   the physical batch the backend computes at once
 * @param seqMax       the most sequences (slots) alive at once
 * @param threads      threads for single-token decode
 * @param threadsBatch threads for prompt prefill
 * @param flashAttention whether attention uses flash attention
 * @param kvCacheType  the KV cache element type, for keys and values alike
 * @param kvUnified    one KV stream for all sequences, so sequences can share cells (prefix reuse)
 * @param embeddings   compute embeddings instead of (or besides) logits
 */
public record ContextParams(
        int contextSize,
        int batchSize,
        int ubatchSize,
        int seqMax,
        int threads,
        int threadsBatch,
        FlashAttention flashAttention,
        KvCacheType kvCacheType,
        boolean kvUnified,
        boolean embeddings) {
    public ContextParams {
        if (contextSize < 0 || batchSize < 1 || ubatchSize < 1 || seqMax < 1 || threads < 1 || threadsBatch < 1) {
            throw new IllegalArgumentException("invalid context params: ctx=" + contextSize + " batch=" + batchSize
                    + " ubatch=" + ubatchSize + " seqMax=" + seqMax + " threads=" + threads + "/" + threadsBatch);
        }
        Objects.requireNonNull(flashAttention, "flashAttention");
        Objects.requireNonNull(kvCacheType, "kvCacheType");
    }

    /** Sensible defaults for {@code seqMax} sequences sharing {@code contextSize} cells. */
    public static ContextParams of(int contextSize, int seqMax, int threads) {
        return new ContextParams(
                contextSize, 512, 512, seqMax, threads, threads, FlashAttention.AUTO, KvCacheType.F16, true, false);
    }
}
