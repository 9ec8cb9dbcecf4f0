package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.FlashAttention;
import forge.api.backend.KvCacheType;
import org.junit.jupiter.api.Test;

class EngineProfileTest {

    @Test
    void profilesAreFoundByNameIgnoringCaseAndUnknownOnesNameTheValidOnes() {
        assertEquals(EngineProfile.LOW_MEMORY, EngineProfile.named("Low-Memory"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EngineProfile.named("turbo"));
        assertTrue(e.getMessage().contains("default, low-latency, throughput, low-memory"), e.getMessage());
    }

    @Test
    void aProfileGivesItsSettings() {
        EngineConfig c = EngineProfile.THROUGHPUT.config(4, 8, 16);
        assertEquals(16384, c.contextSize());
        assertEquals(2048, c.batchSize());
        assertEquals(512, c.ubatchSize());
        assertEquals(4096, c.slotContext());
        assertEquals("throughput", c.profile());
        assertTrue(c.warmup());
        assertEquals(4096, EngineConfig.defaults().contextSize());
        assertEquals("default", EngineConfig.defaults().profile());
    }

    @Test
    void aQuantizedKvCacheTurnsFlashAttentionOnAndRefusesItOff() {
        EngineConfig auto = custom(1, 1024, 64, FlashAttention.AUTO, KvCacheType.Q8_0);
        assertEquals(FlashAttention.ON, auto.flashAttention());
        assertEquals(
                FlashAttention.AUTO,
                custom(1, 1024, 64, FlashAttention.AUTO, KvCacheType.F16).flashAttention());
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> custom(1, 1024, 64, FlashAttention.OFF, KvCacheType.Q4_0));
        assertTrue(e.getMessage().contains("needs flash attention"), e.getMessage());
        assertEquals(FlashAttention.ON, EngineProfile.LOW_MEMORY.config(1, 1, 1).flashAttention());
    }

    @Test
    void theBatchMustLeaveRoomForPrefillBesideTheDecodingSlots() {
        assertThrows(IllegalArgumentException.class, () -> custom(8, 4096, 8, FlashAttention.AUTO, KvCacheType.F16));
    }

    /** The settings of a profile of its own: one thread, a queue of 4, batch and ubatch {@code batch}. */
    private static EngineConfig custom(int slots, int ctx, int batch, FlashAttention fa, KvCacheType kv) {
        return new EngineProfile("test", "a test's own", ctx, batch, batch, fa, kv).config(slots, 1, 4);
    }
}
