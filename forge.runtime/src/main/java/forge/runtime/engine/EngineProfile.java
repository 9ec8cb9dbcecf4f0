package forge.runtime.engine;

import forge.api.backend.FlashAttention;
import forge.api.backend.KvCacheType;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A named set of runtime settings ({@code forge serve --profile NAME}); every field can also be set
 * by its own flag, which wins over the profile.
 *
 * <ul>
 * <li>{@code default}: llama-server's defaults: 4096 cells, batch and ubatch 512, flash attention
 *     auto, f16 KV cache.</li>
 * <li>{@code low-latency}: smaller prefill chunks (batch and ubatch 256), so a long prompt delays
 *     the tokens of streams already decoding less; flash attention on.</li>
 * <li>{@code throughput}: a larger context to share among many slots and batch 2048 (ubatch 512),
 *     so prefill runs in fewer, fuller steps; flash attention on.</li>
 * <li>{@code low-memory}: 2048 cells, a q8_0 KV cache (half of f16; needs flash attention, so on),
 *     batch 256 and ubatch 128 for smaller compute buffers.</li>
 * </ul>
 *
 * @param name           the profile's name
 * @param description    one line for {@code --help} and {@code /props}
 * @param contextSize    KV cells for all slots together
 * @param batchSize      logical batch: the most tokens per decode step
 * @param ubatchSize     physical batch
 * @param flashAttention whether attention uses flash attention
 * @param kvCacheType    KV cache element type
 */
public record EngineProfile(
        String name,
        String description,
        int contextSize,
        int batchSize,
        int ubatchSize,
        FlashAttention flashAttention,
        KvCacheType kvCacheType) {

    public static final EngineProfile DEFAULT = new EngineProfile(
            "default",
            "llama-server's defaults: ctx 4096, batch/ubatch 512, flash attention auto, f16 KV",
            4096,
            512,
            512,
            FlashAttention.AUTO,
            KvCacheType.F16);
    public static final EngineProfile LOW_LATENCY = new EngineProfile(
            "low-latency",
            "smaller prefill chunks (batch/ubatch 256) so streams keep flowing while prompts are read",
            4096,
            256,
            256,
            FlashAttention.ON,
            KvCacheType.F16);
    public static final EngineProfile THROUGHPUT = new EngineProfile(
            "throughput",
            "ctx 16384 for many slots, batch 2048/ubatch 512: prefill in fewer, fuller steps",
            16384,
            2048,
            512,
            FlashAttention.ON,
            KvCacheType.F16);
    public static final EngineProfile LOW_MEMORY = new EngineProfile(
            "low-memory",
            "ctx 2048, q8_0 KV cache (half of f16), batch 256/ubatch 128",
            2048,
            256,
            128,
            FlashAttention.ON,
            KvCacheType.Q8_0);

    public EngineProfile {
        Objects.requireNonNull(name);
        Objects.requireNonNull(description);
        Objects.requireNonNull(flashAttention);
        Objects.requireNonNull(kvCacheType);
    }

    /** Every profile, {@code default} first. */
    public static List<EngineProfile> all() {
        return List.of(DEFAULT, LOW_LATENCY, THROUGHPUT, LOW_MEMORY);
    }

    /**
     * The profile called {@code name}, ignoring case.
     *
     * @throws IllegalArgumentException naming the valid profiles
     */
    public static EngineProfile named(String name) {
        for (EngineProfile p : all()) {
            if (p.name.equalsIgnoreCase(name.strip())) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown profile '" + name + "'; valid: "
                + String.join(", ", all().stream().map(EngineProfile::name).toList()));
    }

    /** This profile's settings for {@code slots} slots, {@code threads} threads and a queue of {@code queue}. */
    public EngineConfig config(int slots, int threads, int queue) {
        return new EngineConfig(
                slots,
                contextSize,
                batchSize,
                ubatchSize,
                threads,
                threads,
                queue,
                flashAttention,
                kvCacheType,
                name.toLowerCase(Locale.ROOT),
                true,
                Speculation.OFF,
                false);
    }
}
