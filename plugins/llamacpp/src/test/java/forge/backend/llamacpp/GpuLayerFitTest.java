package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class GpuLayerFitTest {
    private static final long MIB = 1 << 20;
    private static final List<Long> LAYERS = Collections.nCopies(36, 100 * MIB); // Qwen3-4B-ish: 36 layers

    @Test
    void everythingThatFitsGoesWithTheMarginKept() {
        GpuLayerFit.Choice c = GpuLayerFit.choose(LAYERS, 300 * MIB, 3900 * MIB + GpuLayerFit.MARGIN);
        assertEquals(37, c.layers(), c.reason());
        assertEquals(3900 * MIB, c.bytes());
        assertTrue(c.reason().startsWith("auto: all 37 layers fit"), c.reason());
    }

    @Test
    void tooLittleMemoryOffloadsTheOutputThenTheLastLayersAndSaysSo() {
        GpuLayerFit.Choice c = GpuLayerFit.choose(LAYERS, 300 * MIB, 1050 * MIB + GpuLayerFit.MARGIN);
        assertEquals(1 + 7, c.layers(), c.reason()); // output (300) + 7 layers (700) <= 1050
        assertEquals(1000 * MIB, c.bytes());
        assertTrue(
                c.reason().contains("8 of 37 layers fit") && c.reason().contains("the rest run on the CPU"),
                c.reason());
    }

    @Test
    void lessThanTheMarginOffloadsNothing() {
        assertEquals(0, GpuLayerFit.choose(LAYERS, 300 * MIB, 512 * MIB).layers());
        assertEquals(
                0,
                GpuLayerFit.choose(LAYERS, 300 * MIB, 100 * MIB + GpuLayerFit.MARGIN)
                        .layers());
    }
}
