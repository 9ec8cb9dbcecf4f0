package forge.lib.gguf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The synthetic adapter has convert_lora_to_gguf.py's layout, and the header check refuses adapters of other bases. */
class LoraFilesTest {

    @TempDir
    Path dir;

    @Test
    void theSyntheticAdapterHasTheLayoutLlamaCppReadsAndFitsItsBase() {
        SynthSpec base = SynthSpec.tiny("qwen");
        Path model = dir.resolve("m.gguf");
        Path adapter = dir.resolve("a.gguf");
        SyntheticModels.write(base, model);
        SyntheticModels.writeLora(base, 8, 16f, 1, adapter);
        GgufFile a = GgufReader.read(adapter);
        assertTrue(LoraFiles.isAdapter(a.metadata()));
        assertFalse(LoraFiles.isAdapter(GgufReader.read(model).metadata()));
        assertEquals("lora", a.metadata().string("adapter.type").orElseThrow());
        assertEquals("qwen2", a.metadata().architecture().orElseThrow());
        assertEquals(GgufType.FLOAT32, a.types().get("adapter.lora.alpha"));
        // 2 layers x 7 matrices x (a, b)
        assertEquals(28, a.tensors().size());
        // attn_k.weight is [64, 32] (2 kv heads of 16): a is [in, rank], b is [rank, out]
        assertDims(List.of(64L, 8L), a, "blk.1.attn_k.weight.lora_a");
        assertDims(List.of(8L, 32L), a, "blk.1.attn_k.weight.lora_b");
        assertDims(List.of(128L, 8L), a, "blk.0.ffn_down.weight.lora_a");
        assertDims(List.of(8L, 64L), a, "blk.0.ffn_down.weight.lora_b");
        assertEquals(Optional.empty(), LoraFiles.mismatch(a, GgufReader.read(model)));
    }

    @Test
    void anAdapterOfAnotherWidthOrArchitectureIsRefusedWithTheReason() {
        SynthSpec base = SynthSpec.tiny("qwen");
        Path model = dir.resolve("m.gguf");
        SyntheticModels.write(base, model);
        Path wide = dir.resolve("wide.gguf");
        SyntheticModels.writeLora(base.withShape(128, 2, 4, 2, 128), 4, 4f, 1, wide);
        String why = LoraFiles.mismatch(GgufReader.read(wide), GgufReader.read(model))
                .orElseThrow();
        assertTrue(why.contains("another shape") && why.contains("[128, 4]"), why);

        Path llama = dir.resolve("llama.gguf");
        SyntheticModels.writeLora(SynthSpec.tiny("llama"), 4, 4f, 1, llama);
        why = LoraFiles.mismatch(GgufReader.read(llama), GgufReader.read(model)).orElseThrow();
        assertEquals("it was made for architecture 'llama', the model is 'qwen2'", why);

        why = LoraFiles.mismatch(GgufReader.read(model), GgufReader.read(model)).orElseThrow();
        assertTrue(why.startsWith("it is not an adapter"), why);
    }

    private static void assertDims(List<Long> expected, GgufFile file, String tensor) {
        assertEquals(expected, file.tensor(tensor).orElseThrow().dims(), tensor);
    }
}
