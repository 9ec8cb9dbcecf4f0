package forge.lib.gguf.synth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.lib.gguf.GgmlType;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SynthSpecTest {

    @ParameterizedTest
    @ValueSource(strings = {"qwen", "llama", "gemma", "kimi", "generic"})
    void tinyModelsAreTiny(String family) {
        SynthSpec spec = SynthSpec.tiny(family);
        assertShape(spec, 64, 2, 4, 2, 128, 1024);
        assertEquals(new SynthSpec.Generated(family, 512), spec.vocabulary());
        assertEquals(GgmlType.F32, spec.tensorType());
        assertEquals(family.equals("llama") || family.equals("gemma") ? "llama" : "qwen2", spec.architecture());
        assertTrue(spec.name().contains(family));
    }

    @Test
    void qwen25HasTheRealShape() {
        SynthSpec spec = SynthSpec.qwen25_05b(Path.of("v.gguf"));
        assertEquals("qwen2", spec.architecture());
        assertShape(spec, 896, 24, 14, 2, 4864, 32768);
        assertEquals(64, spec.headSize());
        assertEquals(GgmlType.F16, spec.tensorType());
        assertTrue(spec.tiedEmbeddings());
        assertEquals(new SynthSpec.CopiedFrom(Path.of("v.gguf")), spec.vocabulary());
        SynthSpec.CopiedFrom byDefault =
                (SynthSpec.CopiedFrom) SynthSpec.qwen25_05b().vocabulary();
        assertEquals(SynthSpec.llamaModelsDir().resolve("ggml-vocab-qwen2.gguf"), byDefault.vocabOnlyGguf());
    }

    @Test
    void withersChangeOneThing() {
        SynthSpec tiny = SynthSpec.tiny("qwen");
        assertEquals(
                new SynthSpec(
                        "qwen2", 128, 4, 8, 2, 256, 1024, tiny.vocabulary(), GgmlType.F32, 42, tiny.name(), false),
                tiny.withShape(128, 4, 8, 2, 256));
        assertEquals(2048, tiny.withContextLength(2048).contextLength());
        assertEquals(7, tiny.withSeed(7).seed());
        assertEquals("x", tiny.withName("x").name());
        assertEquals("llama", tiny.withArchitecture("llama").architecture());
        assertEquals(GgmlType.F16, tiny.withTensorType(GgmlType.F16).tensorType());
        assertTrue(tiny.withTiedEmbeddings(true).tiedEmbeddings());
        assertEquals(
                new SynthSpec.Generated("kimi", 1000),
                tiny.withVocabulary(new SynthSpec.Generated("kimi", 1000)).vocabulary());
    }

    @Test
    void invalidShapesAreRefusedWithTheReason() {
        SynthSpec tiny = SynthSpec.tiny("qwen");
        assertMessage("heads (5) must divide embedding (64)", () -> tiny.withShape(64, 2, 5, 2, 128));
        assertMessage("kvHeads (3) must divide heads (4)", () -> tiny.withShape(64, 2, 4, 3, 128));
        assertMessage("must be even", () -> tiny.withShape(12, 2, 4, 2, 32));
        assertMessage("layers must be 1 to 512", () -> tiny.withShape(64, 0, 4, 2, 128));
        assertMessage("layers must be 1 to 512", () -> tiny.withShape(64, 513, 4, 2, 128));
        assertMessage("ffn must be positive", () -> tiny.withShape(64, 2, 4, 2, 0));
        assertMessage("contextLength must be positive", () -> tiny.withContextLength(-1));
        assertMessage("embedding must be positive", () -> tiny.withShape(0, 2, 4, 2, 128));
        assertMessage("architecture must be one of", () -> tiny.withArchitecture("gpt2"));
        assertMessage("tensorType must be F32 or F16", () -> tiny.withTensorType(GgmlType.Q8_0));
        assertMessage("name must not be blank", () -> tiny.withName(" "));
        assertMessage("family must be one of", () -> new SynthSpec.Generated("mistral", 512));
        assertMessage("300 to 262144", () -> new SynthSpec.Generated("qwen", 299));
        assertMessage("300 to 262144", () -> new SynthSpec.Generated("qwen", 262_145));
        assertThrows(IllegalArgumentException.class, () -> SynthSpec.tiny("unknown"));
        assertThrows(NullPointerException.class, () -> new SynthSpec.CopiedFrom(null));
    }

    /** The transformer's sizes, in {@link SynthSpec#withShape}'s order, then the context length. */
    private static void assertShape(
            SynthSpec spec, int embedding, int layers, int heads, int kvHeads, int ffn, int contextLength) {
        assertEquals(
                List.of(embedding, layers, heads, kvHeads, ffn, contextLength),
                List.of(
                        spec.embedding(),
                        spec.layers(),
                        spec.heads(),
                        spec.kvHeads(),
                        spec.ffn(),
                        spec.contextLength()),
                "embedding, layers, heads, kvHeads, ffn, contextLength");
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable executable) {
        var e = assertThrows(IllegalArgumentException.class, executable);
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
    }
}
