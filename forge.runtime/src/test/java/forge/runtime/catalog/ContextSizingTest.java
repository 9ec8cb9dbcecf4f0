package forge.runtime.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.KvCacheType;
import forge.api.model.ModelMetadata;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ContextSizingTest {

    private static final long GIB = 1L << 30;

    /** Qwen2.5-7B's attention: 28 layers, 4 KV heads of 128 (3584 wide over 28 heads). */
    private static final ModelMetadata QWEN_7B = new ModelMetadata(
            Map.of(
                    "general.architecture",
                    "qwen2",
                    "qwen2.block_count",
                    28L,
                    "qwen2.attention.head_count",
                    28L,
                    "qwen2.attention.head_count_kv",
                    4L,
                    "qwen2.embedding_length",
                    3584L,
                    "qwen2.context_length",
                    32768L),
            Map.of());

    @Test
    void theKvCacheSizeComesFromTheGguf() {
        // 28 layers × 4 heads × (128 + 128) × 2 bytes = 57344 bytes per token in f16.
        assertEquals(OptionalLong.of(57_344), ContextSizing.kvBytesPerToken(QWEN_7B, KvCacheType.F16));
        assertEquals(OptionalLong.of(30_464), ContextSizing.kvBytesPerToken(QWEN_7B, KvCacheType.Q8_0));
        assertEquals(OptionalLong.of(16_128), ContextSizing.kvBytesPerToken(QWEN_7B, KvCacheType.Q4_0));
    }

    @Test
    void explicitHeadSizesAndPerLayerKvHeadsCount() {
        ModelMetadata gemma = new ModelMetadata(
                Map.of(
                        "general.architecture",
                        "gemma3",
                        "gemma3.block_count",
                        3L,
                        "gemma3.attention.head_count",
                        8L,
                        "gemma3.attention.head_count_kv",
                        List.of(1L, 2L, 1L),
                        "gemma3.attention.key_length",
                        256L,
                        "gemma3.attention.value_length",
                        128L,
                        "gemma3.embedding_length",
                        1000L),
                Map.of());
        // (1 + 2 + 1) heads × (256 + 128) × 2 bytes
        assertEquals(OptionalLong.of(3_072), ContextSizing.kvBytesPerToken(gemma, KvCacheType.F16));
        assertEquals(OptionalLong.empty(), ContextSizing.kvBytesPerToken(ModelMetadata.EMPTY, KvCacheType.F16));
    }

    @Test
    void withMemoryToSpareEachSlotGetsTheTrainingContext() {
        var c = ContextSizing.choose(ContextSizing.Policy.auto(64 * GIB), 32768, OptionalLong.of(57_344), 4 * GIB, 2);
        assertEquals(32768, c.slotContext());
        assertEquals(65536, c.contextSize());
        assertEquals("auto", c.source());
        assertTrue(c.reason().contains("training context (32768)"), c.reason());
    }

    /** One pool for all slots is sized as one slot's context: any one request may fill it. */
    @Test
    void oneSharedPoolIsSizedAsOneSlotsContext() {
        var c = ContextSizing.choose(
                ContextSizing.Policy.auto(64 * GIB), 32768, OptionalLong.of(57_344), 4 * GIB, 4, true);
        assertEquals(32768, c.contextSize(), "the training context for all four slots together");
        assertEquals(32768, c.slotContext(), "each may fill all of it");
        assertTrue(c.reason().startsWith("one KV pool shared by 4 slot(s)"), c.reason());
        assertFalse(c.reason().contains("1 slot(s)") || c.reason().contains("per slot"), c.reason());
        var set = ContextSizing.choose(
                ContextSizing.Policy.fixed(65536), 32768, OptionalLong.of(57_344), 4 * GIB, 2, true);
        assertEquals(32768, set.contextSize(), "-c beyond the training context is capped at it");
        assertFalse(set.reason().contains("1 slot(s)"), set.reason());
        var capped = ContextSizing.choose(
                ContextSizing.Policy.auto(8 * GIB), 32768, OptionalLong.of(57_344), 4_724_464_025L, 2, true);
        assertEquals(
                ContextSizing.choose(
                                ContextSizing.Policy.auto(8 * GIB), 32768, OptionalLong.of(57_344), 4_724_464_025L, 1)
                        .contextSize(),
                capped.contextSize(),
                "the memory caps the pool as it would one slot");
        assertEquals(
                ContextSizing.choose(ContextSizing.Policy.auto(64 * GIB), 32768, OptionalLong.of(57_344), 4 * GIB, 2),
                ContextSizing.choose(
                        ContextSizing.Policy.auto(64 * GIB), 32768, OptionalLong.of(57_344), 4 * GIB, 2, false));
    }

    @Test
    void onASmallMachineTheMemoryCapsIt() {
        // 8 GiB free, 4.4 GiB of weights (Q4_K_M): half of the rest, 1.8 GiB, over 2 slots of 56 KiB a token.
        var c = ContextSizing.choose(
                ContextSizing.Policy.auto(8 * GIB), 32768, OptionalLong.of(57_344), 4_724_464_025L, 2);
        assertEquals(16640, c.slotContext(), c.reason());
        assertEquals(0, c.slotContext() % 256);
        assertTrue(
                (long) c.contextSize() * 57_344 <= (8 * GIB - 4_724_464_025L) / 2,
                "the cache fits in half the memory left");
        assertTrue(c.reason().contains("would need"), c.reason());
        // More slots share the same memory: each gets less.
        var four = ContextSizing.choose(
                ContextSizing.Policy.auto(8 * GIB), 32768, OptionalLong.of(57_344), 4_724_464_025L, 4);
        assertEquals(8192, four.slotContext());
    }

    @Test
    void aSlotNeverGetsLessThanTheMinimum() {
        var c = ContextSizing.choose(ContextSizing.Policy.auto(5 * GIB), 32768, OptionalLong.of(57_344), 5 * GIB, 2);
        assertEquals(256, c.slotContext());
    }

    @Test
    void unknownsLeaveTheTrainingContextUncapped() {
        assertEquals(
                32768,
                ContextSizing.choose(ContextSizing.Policy.auto(-1), 32768, OptionalLong.of(57_344), 0, 1)
                        .slotContext());
        assertEquals(
                32768,
                ContextSizing.choose(ContextSizing.Policy.auto(GIB), 32768, OptionalLong.empty(), 0, 1)
                        .slotContext());
        assertEquals(
                4096,
                ContextSizing.choose(ContextSizing.Policy.auto(-1), 0, OptionalLong.empty(), 0, 1)
                        .slotContext(),
                "a model that does not say its training context gets 4096");
    }

    @Test
    void aGivenContextIsSharedAndCappedByTheTrainingContext() {
        var c = ContextSizing.choose(ContextSizing.Policy.fixed(8192), 32768, OptionalLong.of(57_344), 0, 4);
        assertEquals(new ContextSizing.Choice(8192, 2048, "set", "-c 8192 shared by 4 slot(s)"), c);
        var capped = ContextSizing.choose(ContextSizing.Policy.fixed(8192), 1024, OptionalLong.of(57_344), 0, 2);
        assertEquals(2048, capped.contextSize());
        assertEquals(1024, capped.slotContext());
        assertEquals(
                8192,
                ContextSizing.choose(ContextSizing.Policy.fixed(8192), 0, OptionalLong.empty(), 0, 2)
                        .contextSize());
    }
}
