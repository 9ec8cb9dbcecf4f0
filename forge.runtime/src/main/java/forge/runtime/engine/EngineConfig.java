package forge.runtime.engine;

/**
 * How an engine runs one model.
 *
 * @param slots          sequences decoded together ({@code --parallel})
 * @param contextSize    KV cells for all slots together ({@code --ctx-size}); each slot gets an equal share
 * @param batchSize      the most tokens in one decode step (decode tokens plus a prefill chunk)
 * @param ubatchSize     the physical batch size
 * @param threads        threads for decoding
 * @param threadsBatch   threads for prefill
 * @param queueCapacity  requests that may wait for a slot before new ones are refused
 * @param flashAttention {@code auto}, {@code on} or {@code off}
 * @param kvCacheType    KV cache element type
 */
public record EngineConfig(int slots, int contextSize, int batchSize, int ubatchSize, int threads, int threadsBatch,
                           int queueCapacity, String flashAttention, String kvCacheType) {
    public EngineConfig {
        if (slots < 1 || contextSize < 16 || batchSize < 1 || ubatchSize < 1 || threads < 1 || threadsBatch < 1 || queueCapacity < 0) {
            throw new IllegalArgumentException("invalid engine config: slots=" + slots + " ctx=" + contextSize
                    + " batch=" + batchSize + " ubatch=" + ubatchSize + " threads=" + threads + " queue=" + queueCapacity);
        }
        if (contextSize / slots < 16) {
            throw new IllegalArgumentException("context " + contextSize + " is too small for " + slots + " slots");
        }
    }

    /** Defaults like llama-server's: one slot, 4096 cells, batch 512, all cores. */
    public static EngineConfig defaults() {
        int cores = Math.max(1, Runtime.getRuntime().availableProcessors());
        return new EngineConfig(1, 4096, 512, 512, cores, cores, 64, "auto", "f16");
    }

    /** The context each slot may fill. */
    public int slotContext() {
        return contextSize / slots;
    }

    public EngineConfig withContext(int ctx, int parallel) {
        return new EngineConfig(parallel, ctx, batchSize, ubatchSize, threads, threadsBatch, queueCapacity, flashAttention, kvCacheType);
    }

    public EngineConfig withThreads(int t) {
        return new EngineConfig(slots, contextSize, batchSize, ubatchSize, t, t, queueCapacity, flashAttention, kvCacheType);
    }
}
