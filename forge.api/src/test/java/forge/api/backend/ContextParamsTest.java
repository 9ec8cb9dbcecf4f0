package forge.api.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ContextParamsTest {

    @Test
    void theDefaultsAreLlamaServers() {
        ContextParams p = ContextParams.of(2048, 4, 2);
        assertEquals(2048, p.contextSize());
        assertEquals(512, p.batchSize());
        assertEquals(512, p.ubatchSize());
        assertEquals(4, p.seqMax());
        assertEquals(FlashAttention.AUTO, p.flashAttention());
        assertEquals(KvCacheType.F16, p.kvCacheType());
        assertTrue(p.kvUnified());
    }

    @Test
    void sizesOutOfRangeAndMissingChoicesAreRefused() {
        var e = assertThrows(
                IllegalArgumentException.class,
                () -> new ContextParams(-1, 512, 512, 1, 1, 1, FlashAttention.AUTO, KvCacheType.F16, true, false));
        assertTrue(e.getMessage().contains("ctx=-1"), e.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> new ContextParams(0, 512, 512, 0, 1, 1, FlashAttention.AUTO, KvCacheType.F16, true, false));
        assertThrows(
                NullPointerException.class,
                () -> new ContextParams(0, 512, 512, 1, 1, 1, null, KvCacheType.F16, true, false));
        assertThrows(
                NullPointerException.class,
                () -> new ContextParams(0, 512, 512, 1, 1, 1, FlashAttention.ON, null, true, false));
    }
}
