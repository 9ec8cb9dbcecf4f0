package forge.api.backend;

/**
 * How to create an inference context.
 *
 * @param contextSize  total KV cells shared by all sequences; 0 means the model's training context
 * @param batchSize    the most tokens one {@link InferenceContext#decode()} may carry
 * @param ubatchSize   the physical batch the backend computes at once
 * @param seqMax       the most sequences (slots) alive at once
 * @param threads      threads for single-token decode
 * @param threadsBatch threads for prompt prefill
 * @param flashAttention {@code auto}, {@code on} or {@code off}
 * @param kvCacheType  the KV cache element type: {@code f16}, {@code q8_0}, {@code q4_0}, {@code f32}
 * @param kvUnified    one KV stream for all sequences, so sequences can share cells (prefix reuse)
 * @param embeddings   compute embeddings instead of (or besides) logits
 */
public record ContextParams(int contextSize, int batchSize, int ubatchSize, int seqMax, int threads,
                            int threadsBatch, String flashAttention, String kvCacheType, boolean kvUnified,
                            boolean embeddings) {
    public ContextParams {
        if (contextSize < 0 || batchSize < 1 || ubatchSize < 1 || seqMax < 1 || threads < 1 || threadsBatch < 1) {
            throw new IllegalArgumentException("invalid context params: ctx=" + contextSize + " batch=" + batchSize
                    + " ubatch=" + ubatchSize + " seqMax=" + seqMax + " threads=" + threads + "/" + threadsBatch);
        }
        if (!java.util.Set.of("auto", "on", "off").contains(flashAttention)) {
            throw new IllegalArgumentException("flashAttention must be auto, on or off: " + flashAttention);
        }
        if (!java.util.Set.of("f16", "f32", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1").contains(kvCacheType)) {
            throw new IllegalArgumentException("unsupported KV cache type: " + kvCacheType);
        }
    }

    /** Sensible defaults for {@code seqMax} sequences sharing {@code contextSize} cells. */
    public static ContextParams of(int contextSize, int seqMax, int threads) {
        return new ContextParams(contextSize, 512, 512, seqMax, threads, threads, "auto", "f16", true, false);
    }
}
