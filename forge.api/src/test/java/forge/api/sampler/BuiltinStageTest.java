package forge.api.sampler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BuiltinStageTest {

    @Test
    void namesAndAliasesAreLlamaServers() {
        assertEquals(Optional.of(BuiltinStage.TOP_K), BuiltinStage.byName("top_k"));
        assertEquals(Optional.of(BuiltinStage.TOP_K), BuiltinStage.byName("top-k"));
        assertEquals(Optional.of(BuiltinStage.TOP_K), BuiltinStage.byName("TopK"));
        assertEquals(Optional.of(BuiltinStage.TOP_P), BuiltinStage.byName("nucleus"));
        assertEquals(Optional.of(BuiltinStage.TEMPERATURE), BuiltinStage.byName("temp"));
        assertEquals(Optional.of(BuiltinStage.TYPICAL_P), BuiltinStage.byName("typ"));
        assertEquals(Optional.of(BuiltinStage.TYPICAL_P), BuiltinStage.byName("typ_p"));
        assertEquals(Optional.of(BuiltinStage.TOP_N_SIGMA), BuiltinStage.byName("top-n-sigma"));
        assertEquals(Optional.of(BuiltinStage.MIROSTAT), BuiltinStage.byName("mirostat"));
        assertTrue(BuiltinStage.byName("loop_guard").isEmpty());
        assertEquals("typ_p", BuiltinStage.TYPICAL_P.wireName());
    }

    @Test
    void lettersAreLlamaCpps() {
        StringBuilder sb = new StringBuilder();
        for (SamplerStep s : BuiltinStage.DEFAULT_ORDER) {
            sb.append(((BuiltinStage) s).letter());
        }
        // common.h's default order, in common_sampler_type_to_chr's letters.
        assertEquals("edskypmxt", sb.toString());
        assertEquals(Optional.of(BuiltinStage.XTC), BuiltinStage.byLetter('x'));
        assertTrue(BuiltinStage.byLetter('q').isEmpty());
    }

    @Test
    void theDefaultOrderIsLlamaServers() {
        assertEquals(
                List.of("penalties", "dry", "top_n_sigma", "top_k", "typ_p", "top_p", "min_p", "xtc", "temperature"),
                BuiltinStage.DEFAULT_ORDER.stream().map(SamplerStep::stageName).toList());
    }
}
