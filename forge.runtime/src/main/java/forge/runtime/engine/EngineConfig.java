package forge.runtime.engine;

import forge.api.backend.FlashAttention;
import forge.api.backend.KvCacheType;
import java.util.Objects;

/**
 * How an engine runs one model.
 *
 * @param slots          sequences decoded together ({@code --parallel})
 * @param contextSize    KV cells for all slots together ({@code --ctx-size}); each slot gets an equal share,
 *                       or with {@code kvUnified} any request may use all of them that the others leave
 * @param batchSize      the most tokens in one decode step (decode tokens plus a prefill chunk)
 * @param ubatchSize     the physical batch size
 * @param threads        threads for decoding
 * @param threadsBatch   threads for prefill
 * @param queueCapacity  requests that may wait for a slot before new ones are refused
 * @param flashAttention whether attention uses flash attention; {@link FlashAttention#ON} whenever the KV
 *                       cache is quantized
 * @param kvCacheType    KV cache element type
 * @param profile        the {@link EngineProfile} these settings started from, for {@code /props}
 * @param warmup         decode a tiny batch at load (then forget it), so the first request is as
 *                       fast as the second
 * @param speculation    n-gram speculative decoding for requests that do not say otherwise
 *                       ({@link Speculation#OFF} by default, as llama-server's)
 * @param kvUnified      one KV pool of {@code contextSize} cells that the slots share ({@code --kv-unified},
 *                       llama.cpp's {@code kv_unified}) instead of a stream of an equal share per slot
 */
public record EngineConfig(
        int slots,
        int contextSize,
        int batchSize,
        int ubatchSize,
        int threads,
        int threadsBatch,
        int queueCapacity,
        FlashAttention flashAttention,
        KvCacheType kvCacheType,
        String profile,
        boolean warmup,
        Speculation speculation,
        boolean kvUnified) {

    public EngineConfig {
        Objects.requireNonNull(speculation, "speculation");
        if (slots < 1
                || contextSize < 16
                || batchSize < 1
                || ubatchSize < 1
                || threads < 1
                || threadsBatch < 1
                || queueCapacity < 0) {
            throw new IllegalArgumentException(
                    "invalid engine config: slots=" + slots + " ctx=" + contextSize + " batch=" + batchSize + " ubatch="
                            + ubatchSize + " threads=" + threads + " queue=" + queueCapacity);
        }
        if (contextSize / slots < 16) {
            throw new IllegalArgumentException("context " + contextSize + " is too small for " + slots + " slots");
        }
        if (batchSize <= slots) {
            // Every decoding slot puts one token in each batch; prefill needs room beside them.
            throw new IllegalArgumentException(
                    "batch size " + batchSize + " must exceed the number of slots (" + slots + ")");
        }
        Objects.requireNonNull(flashAttention, "flashAttention");
        Objects.requireNonNull(kvCacheType, "kvCacheType");
        if (kvCacheType.quantized()) {
            // llama.cpp refuses a quantized V cache without flash attention.
            if (flashAttention == FlashAttention.OFF) {
                throw new IllegalArgumentException("a quantized KV cache (" + kvCacheType
                        + ") needs flash attention: use --flash-attn on (or auto), or --kv-type f16");
            }
            flashAttention = FlashAttention.ON;
        }
        profile = profile == null || profile.isBlank() ? "custom" : profile;
    }

    /** Defaults like llama-server's: one slot, 4096 cells, batch 512, all cores. */
    public static EngineConfig defaults() {
        return EngineProfile.DEFAULT.config(1, Math.max(1, Runtime.getRuntime().availableProcessors()), 64);
    }

    /** The context each slot may fill: all of it in one pool, else an equal share. */
    public int slotContext() {
        return kvUnified ? contextSize : contextSize / slots;
    }

    public EngineConfig withContext(int ctx, int parallel) {
        return with(parallel, ctx, threads, threadsBatch, speculation, kvUnified);
    }

    /** These settings with {@code s} as the requests' default speculation. */
    public EngineConfig withSpeculation(Speculation s) {
        return with(slots, contextSize, threads, threadsBatch, s, kvUnified);
    }

    public EngineConfig withThreads(int t) {
        return with(slots, contextSize, t, t, speculation, kvUnified);
    }

    /** These settings with one KV pool for all slots ({@code true}) or a stream per slot. */
    public EngineConfig withKvUnified(boolean unified) {
        return with(slots, contextSize, threads, threadsBatch, speculation, unified);
    }

    /**
     * These settings with the components a wither changes: every wither goes through this one copy
     * of the canonical constructor's argument list, and the result is validated there as any config is.
     */
    private EngineConfig with(int parallel, int ctx, int t, int tBatch, Speculation s, boolean unified) {
        return new EngineConfig(
                parallel,
                ctx,
                batchSize,
                ubatchSize,
                t,
                tBatch,
                queueCapacity,
                flashAttention,
                kvCacheType,
                profile,
                warmup,
                s,
                unified);
    }
}
