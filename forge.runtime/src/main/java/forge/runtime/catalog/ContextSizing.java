package forge.runtime.catalog;

import forge.api.backend.KvCacheType;
import forge.api.model.ModelMetadata;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * How large a model's context is: the decision, apart from the loading it steers (pure logic,
 * tested without llama.cpp).
 *
 * <p>Without {@code -c}, each slot gets the context the model was trained for, as llama-server's
 * {@code -c 0} does, unless the KV cache for that many slots would not fit in memory: then each
 * slot gets what half of the memory left beside the weights holds (the other half is for the
 * compute buffers, the operating system and the user's other programs; llama-server's
 * {@code --fit} keeps a margin too). The KV cache's size per token is computed from the GGUF:
 * layers × KV heads × (key size + value size) × the cache type's bytes per element. With
 * {@code -c}, that many cells are shared by all slots, but no slot gets more than the model was
 * trained for. Either way the choice says why, for the start-up log and {@code /props}.
 */
public final class ContextSizing {

    private ContextSizing() {}

    /** Slot contexts are a multiple of this (llama.cpp pads the KV cache to 256 cells). */
    static final int STEP = 256;
    /** Below this a slot is of little use: memory permitting or not, a slot gets at least this much. */
    static final int MIN_SLOT = 256;
    /** The context for a model that does not say what it was trained for. */
    static final int UNKNOWN_TRAIN = 4096;

    /**
     * The request: a context given ({@code -c}, or a profile's), or none, with the memory there is;
     * and why there are as many slots as there are, since the slots share that memory.
     *
     * @param contextSize     the cells for all slots together, when given
     * @param availableMemory the bytes the machine has free for the model and its cache, or -1 when unknown
     * @param slotsReason     why the engine has its number of slots, for {@code /props}
     */
    public record Policy(OptionalInt contextSize, long availableMemory, String slotsReason) {

        /** A context given: {@code cells} for all slots together. */
        public static Policy fixed(int cells) {
            return new Policy(OptionalInt.of(cells), -1, "set");
        }

        /** The training context per slot, capped by {@code availableMemory} (-1: unknown). */
        public static Policy auto(long availableMemory) {
            return new Policy(OptionalInt.empty(), availableMemory, "set");
        }

        /** This policy with the reason for the number of slots. */
        public Policy withSlotsReason(String reason) {
            return new Policy(contextSize, availableMemory, reason);
        }
    }

    /**
     * What was chosen.
     *
     * @param contextSize the cells for all slots together
     * @param slotContext the cells each slot may fill
     * @param source      {@code auto} or {@code set}
     * @param reason      why, in a sentence, with the figures that decided it
     */
    public record Choice(int contextSize, int slotContext, String source, String reason) {}

    /**
     * The KV cache's bytes per token (all layers, keys and values) of a model, from its GGUF
     * metadata ({@code ARCH.block_count}, {@code ARCH.attention.head_count_kv}, which may be
     * per layer, {@code ARCH.attention.key_length}/{@code value_length}, else the embedding width
     * over the heads); empty when the metadata does not say.
     */
    public static OptionalLong kvBytesPerToken(ModelMetadata metadata, KvCacheType type) {
        String arch = metadata.architecture().orElse("");
        OptionalLong layers = metadata.integer(arch + ".block_count");
        OptionalLong heads = metadata.integer(arch + ".attention.head_count");
        OptionalLong embedding = metadata.integer(arch + ".embedding_length");
        if (layers.isEmpty() || layers.getAsLong() < 1) {
            return OptionalLong.empty();
        }
        long headSize = heads.isPresent() && heads.getAsLong() > 0 && embedding.isPresent()
                ? embedding.getAsLong() / heads.getAsLong()
                : -1;
        long key = metadata.integer(arch + ".attention.key_length").orElse(headSize);
        long value = metadata.integer(arch + ".attention.value_length").orElse(headSize);
        if (key < 1 || value < 1) {
            return OptionalLong.empty();
        }
        // KV heads summed over the layers: a scalar for every layer, or one per layer.
        long kvHeadLayers;
        OptionalLong kv = metadata.integer(arch + ".attention.head_count_kv");
        if (kv.isPresent()) {
            kvHeadLayers = kv.getAsLong() * layers.getAsLong();
        } else if (metadata.list(arch + ".attention.head_count_kv").isPresent()) {
            List<?> perLayer = metadata.list(arch + ".attention.head_count_kv").get();
            kvHeadLayers = perLayer.stream()
                    .mapToLong(v -> v instanceof Long l ? l : 0)
                    .sum();
        } else if (heads.isPresent()) {
            kvHeadLayers = heads.getAsLong() * layers.getAsLong();
        } else {
            return OptionalLong.empty();
        }
        double elements = (double) kvHeadLayers * (key + value);
        return OptionalLong.of((long) Math.ceil(elements * bytesPerElement(type)));
    }

    /** What one cached element costs: ggml's block sizes for the quantized types. */
    static double bytesPerElement(KvCacheType type) {
        return switch (type) {
            case F32 -> 4;
            case F16, BF16 -> 2;
            case Q8_0 -> 34.0 / 32;
            case Q5_1 -> 24.0 / 32;
            case Q5_0 -> 22.0 / 32;
            case Q4_1 -> 20.0 / 32;
            case Q4_0 -> 18.0 / 32;
        };
    }

    /**
     * The context for a model.
     *
     * @param trainContext    what the model was trained for; 0 when it does not say
     * @param kvBytesPerToken the KV cache per token ({@link #kvBytesPerToken}); empty when unknown
     * @param modelBytes      the weights' size
     * @param slots           the slots that share the cache
     */
    public static Choice choose(
            Policy policy, int trainContext, OptionalLong kvBytesPerToken, long modelBytes, int slots) {
        if (policy.contextSize().isPresent()) {
            int given = policy.contextSize().getAsInt();
            if (trainContext > 0 && given / slots > trainContext) {
                return new Choice(
                        trainContext * slots,
                        trainContext,
                        "set",
                        "-c " + given + " gives each of the " + slots
                                + " slot(s) more than the model's training context of " + trainContext
                                + ": capped at it");
            }
            return new Choice(given, given / slots, "set", "-c " + given + " shared by " + slots + " slot(s)");
        }
        int train = trainContext > 0 ? trainContext : UNKNOWN_TRAIN;
        String trained = trainContext > 0
                ? "the model's training context (" + trainContext + ")"
                : "the model does not say its training context: " + UNKNOWN_TRAIN;
        if (policy.availableMemory() < 0 || kvBytesPerToken.isEmpty()) {
            return new Choice(
                    train * slots,
                    train,
                    "auto",
                    trained + " per slot; "
                            + (kvBytesPerToken.isEmpty()
                                    ? "the KV cache's size per token is unknown"
                                    : "the free memory is unknown")
                            + ", so it is not capped");
        }
        long perToken = kvBytesPerToken.getAsLong();
        long budget = Math.max(0, policy.availableMemory() - modelBytes) / 2;
        long fits = budget / ((long) slots * perToken);
        String figures = "KV cache " + perToken + " bytes/token, " + mib(budget) + " MiB for it (half of "
                + mib(policy.availableMemory()) + " MiB free less " + mib(modelBytes) + " MiB of weights)";
        if (fits >= train) {
            return new Choice(
                    train * slots,
                    train,
                    "auto",
                    trained + " per slot, " + slots + " slot(s): " + mib((long) train * slots * perToken)
                            + " MiB of KV cache fits (" + figures + ")");
        }
        int capped = (int) Math.max(MIN_SLOT, fits / STEP * STEP);
        return new Choice(
                capped * slots,
                capped,
                "auto",
                capped + " per slot, " + slots + " slot(s): " + trained + " would need "
                        + mib((long) train * slots * perToken) + " MiB of KV cache; " + figures);
    }

    /**
     * The context for a model whose slots share one KV pool ({@code unified}): the pool is sized as
     * one slot's context would be (with {@code -c 0}, the training context, as llama-server's
     * unified pool), since any one request may fill it; else as {@link #choose(Policy, int,
     * OptionalLong, long, int)}.
     */
    public static Choice choose(
            Policy policy,
            int trainContext,
            OptionalLong kvBytesPerToken,
            long modelBytes,
            int slots,
            boolean unified) {
        if (!unified) {
            return choose(policy, trainContext, kvBytesPerToken, modelBytes, slots);
        }
        Choice one = choose(policy, trainContext, kvBytesPerToken, modelBytes, 1);
        return new Choice(
                one.contextSize(),
                one.contextSize(),
                one.source(),
                "one KV pool shared by " + slots + " slot(s), sized as one slot's context: "
                        + one.reason()
                                .replace(" shared by 1 slot(s)", "")
                                .replace("each of the 1 slot(s)", "the pool")
                                .replace(" per slot, 1 slot(s)", "")
                                .replace(" per slot;", ";"));
    }

    private static long mib(long bytes) {
        return bytes >> 20;
    }
}
