package forge.api.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class FlashAttentionTest {

    @Test
    void everyModeParsesFromItsWireSpellingInAnyCase() {
        assertEquals(FlashAttention.AUTO, FlashAttention.parse("auto"));
        assertEquals(FlashAttention.ON, FlashAttention.parse("On"));
        assertEquals(FlashAttention.OFF, FlashAttention.parse("OFF"));
        for (FlashAttention fa : FlashAttention.values()) {
            assertEquals(fa, FlashAttention.parse(fa.wire()));
            assertEquals(fa.wire(), fa.toString(), "logs and messages show the flag's spelling");
        }
    }

    @Test
    void anUnknownModeIsRefusedListingTheAllowedOnes() {
        var e = assertThrows(IllegalArgumentException.class, () -> FlashAttention.parse("maybe"));
        assertEquals("flash attention must be auto, on or off, not 'maybe'", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FlashAttention.parse(""));
    }
}
