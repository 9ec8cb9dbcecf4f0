package forge.api.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class KvCacheTypeTest {

    @Test
    void everyTypeParsesFromItsWireSpellingInAnyCase() {
        for (KvCacheType t : KvCacheType.values()) {
            assertEquals(t, KvCacheType.parse(t.wire()));
            assertEquals(t, KvCacheType.parse(t.wire().toUpperCase(java.util.Locale.ROOT)));
            assertEquals(t.wire(), t.toString(), "logs and messages show the flag's spelling");
        }
        assertEquals(
                List.of("f16", "bf16", "f32", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0"),
                Arrays.stream(KvCacheType.values()).map(KvCacheType::wire).toList());
    }

    @Test
    void onlyTheBlockTypesAreQuantized() {
        assertFalse(KvCacheType.F16.quantized());
        assertFalse(KvCacheType.BF16.quantized());
        assertFalse(KvCacheType.F32.quantized());
        for (KvCacheType t :
                List.of(KvCacheType.Q8_0, KvCacheType.Q5_1, KvCacheType.Q5_0, KvCacheType.Q4_1, KvCacheType.Q4_0)) {
            assertTrue(t.quantized(), t.wire());
        }
    }

    @Test
    void anUnknownTypeIsRefusedListingTheAllowedOnes() {
        var e = assertThrows(IllegalArgumentException.class, () -> KvCacheType.parse("q3_k"));
        assertEquals(
                "KV cache type must be f16, bf16, f32, q8_0, q5_1, q5_0, q4_1 or q4_0, not 'q3_k'", e.getMessage());
        assertThrows(
                IllegalArgumentException.class, () -> KvCacheType.parse("Q8_0 "), "no trimming: the flag is as given");
        assertThrows(NullPointerException.class, () -> KvCacheType.parse(null));
    }
}
