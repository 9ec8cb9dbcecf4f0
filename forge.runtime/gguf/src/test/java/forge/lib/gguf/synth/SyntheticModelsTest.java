package forge.lib.gguf.synth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.lib.gguf.GgmlType;
import forge.lib.gguf.GgufException;
import forge.lib.gguf.GgufFile;
import forge.lib.gguf.GgufReader;
import forge.lib.gguf.GgufTensorInfo;
import forge.lib.gguf.GgufType;
import forge.lib.gguf.GgufValue;
import forge.lib.gguf.LlamaModels;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SyntheticModelsTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"qwen", "llama", "gemma", "kimi", "generic", "coder"})
    void tinyModelsWriteFastWithTheTensorsLlamaCppExpects(String family) throws IOException {
        SynthSpec spec = SynthSpec.tiny(family);
        Path file = dir.resolve(family + ".gguf");
        SyntheticModels.write(spec, dir.resolve("warm-up.gguf"));
        // The writer's own CPU time, not wall time: another process on a busy machine does not count.
        var threads = ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        SyntheticModels.write(spec, file);
        long millis = (threads.getCurrentThreadCpuTime() - start) / 1_000_000;
        assertTrue(millis < 500, "written in " + millis + " ms of CPU time");

        GgufFile header = GgufReader.read(file);
        var md = header.metadata();
        String arch = spec.architecture();
        assertEquals(arch, md.architecture().orElseThrow());
        assertEquals(spec.name(), md.name().orElseThrow());
        assertEquals(0L, md.integer("general.file_type").orElseThrow());
        assertEquals(1024L, md.contextLength().orElseThrow());
        assertEquals(64L, md.integer(arch + ".embedding_length").orElseThrow());
        assertEquals(2L, md.integer(arch + ".block_count").orElseThrow());
        assertEquals(128L, md.integer(arch + ".feed_forward_length").orElseThrow());
        assertEquals(4L, md.integer(arch + ".attention.head_count").orElseThrow());
        assertEquals(2L, md.integer(arch + ".attention.head_count_kv").orElseThrow());
        assertEquals(GgufType.FLOAT32, header.types().get(arch + ".attention.layer_norm_rms_epsilon"));
        assertEquals(GgufType.FLOAT32, header.types().get(arch + ".rope.freq_base"));
        assertEquals(GgufType.UINT32, header.types().get("tokenizer.ggml.eos_token_id"));
        assertEquals("gpt2", md.string("tokenizer.ggml.model").orElseThrow());
        assertEquals(512L, md.arrayLength("tokenizer.ggml.tokens").orElseThrow());
        assertTrue(md.chatTemplate().isPresent());

        boolean qwen2 = arch.equals("qwen2");
        assertEquals(1 + 2 * (qwen2 ? 12 : 9) + 2, header.tensors().size());
        assertShape(header, "token_embd.weight", GgmlType.F32, 64, 512);
        assertShape(header, "output.weight", GgmlType.F32, 64, 512);
        assertShape(header, "output_norm.weight", GgmlType.F32, 64);
        for (int i = 0; i < 2; i++) {
            String blk = "blk." + i + ".";
            assertShape(header, blk + "attn_norm.weight", GgmlType.F32, 64);
            assertShape(header, blk + "attn_q.weight", GgmlType.F32, 64, 64);
            assertShape(header, blk + "attn_k.weight", GgmlType.F32, 64, 32);
            assertShape(header, blk + "attn_v.weight", GgmlType.F32, 64, 32);
            assertShape(header, blk + "attn_output.weight", GgmlType.F32, 64, 64);
            assertShape(header, blk + "ffn_norm.weight", GgmlType.F32, 64);
            assertShape(header, blk + "ffn_gate.weight", GgmlType.F32, 64, 128);
            assertShape(header, blk + "ffn_up.weight", GgmlType.F32, 64, 128);
            assertShape(header, blk + "ffn_down.weight", GgmlType.F32, 128, 64);
            assertEquals(qwen2, header.tensor(blk + "attn_q.bias").isPresent());
            if (qwen2) {
                assertShape(header, blk + "attn_k.bias", GgmlType.F32, 32);
            }
        }
        // llama.cpp wants the tensors packed in order, each at the next aligned offset
        long expected = 0;
        for (GgufTensorInfo t : header.tensors()) {
            assertEquals(expected, t.offset(), t.name());
            expected += (t.byteSize() + 31) / 32 * 32;
        }
        assertEquals(header.dataOffset() + expected, header.fileSize());

        float[] norm = floats(file, header, "blk.1.ffn_norm.weight");
        for (float f : norm) {
            assertEquals(1f, f);
        }
        float[] weights = floats(file, header, "blk.0.ffn_up.weight");
        double sum = 0;
        double squares = 0;
        for (float f : weights) {
            assertTrue(Math.abs(f) <= 0.035f, "small weights: " + f);
            sum += f;
            squares += f * f;
        }
        double mean = sum / weights.length;
        double std = Math.sqrt(squares / weights.length - mean * mean);
        assertEquals(0.0, mean, 0.002);
        assertEquals(0.02, std, 0.002);
    }

    @Test
    void theSameSpecGivesTheSameBytes() throws IOException {
        SynthSpec spec = SynthSpec.tiny("llama").withTensorType(GgmlType.F16);
        SyntheticModels.write(spec, dir.resolve("a.gguf"));
        SyntheticModels.write(spec, dir.resolve("b.gguf"));
        SyntheticModels.write(spec.withSeed(43), dir.resolve("c.gguf"));
        assertEquals(sha256(dir.resolve("a.gguf")), sha256(dir.resolve("b.gguf")));
        assertNotEquals(sha256(dir.resolve("a.gguf")), sha256(dir.resolve("c.gguf")));
    }

    @Test
    void theCoderVocabularyNamesItsFimTokens() throws IOException {
        Path file = dir.resolve("coder.gguf");
        SyntheticModels.write(SynthSpec.tiny("coder"), file);
        var md = GgufReader.read(file).metadata();
        SynthVocabulary v = SynthVocabulary.generate(new SynthSpec.Generated("coder", 512));
        Map<String, String> fimTokens = Map.of(
                "fim_pre", "<|fim_prefix|>",
                "fim_suf", "<|fim_suffix|>",
                "fim_mid", "<|fim_middle|>",
                "fim_pad", "<|fim_pad|>",
                "fim_rep", "<|repo_name|>",
                "fim_sep", "<|file_sep|>");
        fimTokens.forEach((key, token) -> assertEquals(
                (long) v.id(token),
                md.integer("tokenizer.ggml." + key + "_token_id").orElseThrow(),
                key));
        SyntheticModels.write(SynthSpec.tiny("qwen"), dir.resolve("qwen.gguf"));
        assertFalse(GgufReader.read(dir.resolve("qwen.gguf"))
                .metadata()
                .integer("tokenizer.ggml.fim_pre_token_id")
                .isPresent());
    }

    @Test
    void aQwen2vlModelHasQwen2sTensorsAndTheMRopeSectionsOfItsHead() throws IOException {
        Path file = dir.resolve("qwen2vl.gguf");
        SyntheticModels.write(SynthSpec.tiny("qwen").withArchitecture("qwen2vl"), file);
        GgufFile header = GgufReader.read(file);
        var md = header.metadata();
        assertEquals("qwen2vl", md.architecture().orElseThrow());
        // a head of 16: 8 rotated pairs, split as Qwen2-VL's [16, 24, 24, 0] splits its 64
        assertEquals(
                List.of(2, 3, 3, 0),
                md.list("qwen2vl.rope.dimension_sections").orElseThrow().stream()
                        .map(v -> ((Number) v).intValue())
                        .toList());
        assertTrue(header.tensor("blk.1.attn_q.bias").isPresent(), "qwen2's Q/K/V biases");
        assertEquals(1_000_000f, ((Number) md.values().get("qwen2vl.rope.freq_base")).floatValue());
    }

    @Test
    void aRerankerHasQwen3sNormsARankHeadAndItsPromptTemplate() throws IOException {
        Path file = dir.resolve("rerank.gguf");
        SyntheticModels.reranker(SynthSpec.tiny("qwen").withArchitecture("qwen3"))
                .write(file);
        GgufFile header = GgufReader.read(file);
        var md = header.metadata();
        assertEquals("qwen3", md.architecture().orElseThrow());
        assertEquals(4L, md.integer("qwen3.pooling_type").orElseThrow());
        assertEquals(
                List.of("yes", "no"), md.list("qwen3.classifier.output_labels").orElseThrow());
        assertTrue(md.string("tokenizer.chat_template.rerank").orElseThrow().contains("{query}"));
        assertShape(header, "cls.output.weight", GgmlType.F32, 64, 2);
        assertShape(header, "blk.1.attn_q_norm.weight", GgmlType.F32, 16);
        assertShape(header, "blk.1.attn_k_norm.weight", GgmlType.F32, 16);
        assertFalse(header.tensor("blk.0.attn_q.bias").isPresent(), "qwen3 has no Q/K/V biases");
        assertThrows(IllegalArgumentException.class, () -> SyntheticModels.reranker(SynthSpec.tiny("qwen")));
    }

    @Test
    void f16AndTiedEmbeddings() throws IOException {
        SynthSpec spec = SynthSpec.tiny("qwen").withTensorType(GgmlType.F16).withTiedEmbeddings(true);
        Path file = dir.resolve("f16.gguf");
        SyntheticModels.write(spec, file);
        GgufFile header = GgufReader.read(file);
        assertEquals(1L, header.metadata().integer("general.file_type").orElseThrow());
        assertFalse(header.tensor("output.weight").isPresent(), "tied to token_embd.weight");
        assertShape(header, "token_embd.weight", GgmlType.F16, 64, 512);
        assertShape(header, "blk.0.attn_q.bias", GgmlType.F32, 64);
        assertShape(header, "blk.0.attn_norm.weight", GgmlType.F32, 64);
    }

    @Test
    void copiesAWholeVocabulary() {
        Path vocab = LlamaModels.file("ggml-vocab-qwen2.gguf");
        SynthSpec spec = SynthSpec.tiny("qwen")
                .withVocabulary(new SynthSpec.CopiedFrom(vocab))
                .withTensorType(GgmlType.F16)
                .withTiedEmbeddings(true);
        Path file = dir.resolve("copied.gguf");
        SyntheticModels.write(spec, file);
        try (GgufReader original = GgufReader.open(vocab);
                GgufReader copy = GgufReader.open(file)) {
            Map<String, GgufValue> expected = original.values(k -> k.startsWith("tokenizer."));
            assertFalse(expected.isEmpty());
            assertEquals(expected, copy.values(k -> k.startsWith("tokenizer.")));
            GgufFile header = copy.file();
            assertEquals("qwen2", header.metadata().architecture().orElseThrow());
            assertEquals(spec.name(), header.metadata().name().orElseThrow(), "the model's name, not the vocabulary's");
            assertShape(header, "token_embd.weight", GgmlType.F16, 64, 151936);
        }
    }

    @Test
    void aMissingVocabularyFileIsReportedClearly() {
        Path missing = dir.resolve("ggml-vocab-nothing.gguf");
        var spec = SynthSpec.tiny("qwen").withVocabulary(new SynthSpec.CopiedFrom(missing));
        var e = assertThrows(GgufException.class, () -> SyntheticModels.write(spec, dir.resolve("x.gguf")));
        assertTrue(
                e.getMessage().contains(missing.toString()) && e.getMessage().contains("no such vocabulary file"),
                e.getMessage());
        assertFalse(Files.exists(dir.resolve("x.gguf")));
    }

    @Test
    void reportsProgress() {
        List<Double> seen = new ArrayList<>();
        SyntheticModels.write(SynthSpec.tiny("gemma").withShape(256, 4, 4, 2, 1024), dir.resolve("p.gguf"), seen::add);
        assertTrue(seen.size() > 2, "reported along the way: " + seen);
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i) >= seen.get(i - 1), "monotonic: " + seen);
        }
        assertEquals(1.0, seen.getLast());
    }

    private static void assertShape(GgufFile header, String name, GgmlType type, long... dims) {
        GgufTensorInfo t = header.tensor(name).orElseThrow(() -> new AssertionError("no tensor " + name));
        assertEquals(type, t.type(), name);
        assertEquals(java.util.Arrays.stream(dims).boxed().toList(), t.dims(), name);
    }

    private static float[] floats(Path file, GgufFile header, String name) throws IOException {
        GgufTensorInfo t = header.tensor(name).orElseThrow();
        ByteBuffer buf = ByteBuffer.allocate((int) t.byteSize()).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(file)) {
            ch.read(buf, header.absoluteOffset(t));
        }
        buf.flip();
        float[] out = new float[(int) t.elementCount()];
        buf.asFloatBuffer().get(out);
        return out;
    }

    private static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
