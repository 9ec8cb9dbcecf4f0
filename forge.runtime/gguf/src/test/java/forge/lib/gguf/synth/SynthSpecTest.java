package forge.lib.gguf.synth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.lib.gguf.GgmlType;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SynthSpecTest {

    @ParameterizedTest
    @ValueSource(strings = {"qwen", "llama", "gemma", "kimi", "generic"})
    void tinyModelsAreTiny(String family) {
        SynthSpec spec = SynthSpec.tiny(family);
        assertEquals(64, spec.embedding());
        assertEquals(2, spec.layers());
        assertEquals(4, spec.heads());
        assertEquals(2, spec.kvHeads());
        assertEquals(128, spec.ffn());
        assertEquals(1024, spec.contextLength());
        assertEquals(new SynthSpec.Generated(family, 512), spec.vocabulary());
        assertEquals(GgmlType.F32, spec.tensorType());
        assertEquals(family.equals("llama") || family.equals("gemma") ? "llama" : "qwen2", spec.architecture());
        assertTrue(spec.name().contains(family));
    }

    @Test
    void qwen25HasTheRealShape() {
        SynthSpec spec = SynthSpec.qwen25_05b(Path.of("v.gguf"));
        assertEquals("qwen2", spec.architecture());
        assertEquals(896, spec.embedding());
        assertEquals(24, spec.layers());
        assertEquals(14, spec.heads());
        assertEquals(2, spec.kvHeads());
        assertEquals(4864, spec.ffn());
        assertEquals(32768, spec.contextLength());
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
        assertEquals(3, tiny.withLayers(3).layers());
        assertEquals(96, tiny.withEmbedding(96).embedding());
        assertEquals(1, tiny.withKvHeads(1).kvHeads());
        assertEquals(8, tiny.withHeads(8).heads());
        assertEquals(100, tiny.withFfn(100).ffn());
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
        assertMessage("heads (5) must divide embedding (64)", () -> tiny.withHeads(5));
        assertMessage("kvHeads (3) must divide heads (4)", () -> tiny.withKvHeads(3));
        assertMessage("must be even", () -> tiny.withShape(12, 2, 4, 2, 32));
        assertMessage("layers must be 1 to 512", () -> tiny.withLayers(0));
        assertMessage("layers must be 1 to 512", () -> tiny.withLayers(513));
        assertMessage("ffn must be positive", () -> tiny.withFfn(0));
        assertMessage("contextLength must be positive", () -> tiny.withContextLength(-1));
        assertMessage("embedding must be positive", () -> tiny.withEmbedding(0));
        assertMessage("architecture must be one of", () -> tiny.withArchitecture("gpt2"));
        assertMessage("tensorType must be F32 or F16", () -> tiny.withTensorType(GgmlType.Q8_0));
        assertMessage("name must not be blank", () -> tiny.withName(" "));
        assertMessage("family must be one of", () -> new SynthSpec.Generated("mistral", 512));
        assertMessage("300 to 262144", () -> new SynthSpec.Generated("qwen", 299));
        assertMessage("300 to 262144", () -> new SynthSpec.Generated("qwen", 262_145));
        assertThrows(IllegalArgumentException.class, () -> SynthSpec.tiny("unknown"));
        assertThrows(NullPointerException.class, () -> new SynthSpec.CopiedFrom(null));
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable executable) {
        var e = assertThrows(IllegalArgumentException.class, executable);
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
    }
}
