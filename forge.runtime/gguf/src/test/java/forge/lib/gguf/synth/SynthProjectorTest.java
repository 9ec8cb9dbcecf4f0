package forge.lib.gguf.synth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.lib.gguf.GgmlType;
import forge.lib.gguf.GgufFile;
import forge.lib.gguf.GgufReader;
import forge.lib.gguf.GgufTensorInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The synthetic projectors carry the keys and tensor shapes {@code clip.cpp} reads for their
 * family (plugins/llamacpp's {@code LlamaProjectorTest} loads them into libmtmd itself).
 */
class SynthProjectorTest {

    @TempDir
    Path dir;

    @Test
    void aGemma3ProjectorHasASiglipEncoderAndTheGemma3Projection() throws IOException {
        SynthProjector spec = SynthProjector.tiny("gemma3", 64);
        GgufFile header = written(spec);
        var md = header.metadata();
        assertEquals("clip", md.architecture().orElseThrow());
        assertEquals(32L, md.integer("clip.vision.embedding_length").orElseThrow());
        assertEquals(48L, md.integer("clip.vision.feed_forward_length").orElseThrow());
        assertEquals(128L, md.integer("clip.vision.image_size").orElseThrow());
        assertEquals(8L, md.integer("clip.vision.patch_size").orElseThrow());
        assertEquals(3L, md.arrayLength("clip.vision.image_mean").orElseThrow());
        shape(header, "v.patch_embd.weight", 8, 8, 3, 32);
        shape(header, "v.position_embd.weight", 32, 256);
        shape(header, "v.blk.1.ffn_up.weight", 32, 48);
        shape(header, "v.blk.1.ffn_down.weight", 48, 32);
        shape(header, "mm.input_projection.weight", 64, 32); // clip_n_mmproj_embd reads ne[0]
        shape(header, "mm.soft_emb_norm.weight", 32);
        assertFalse(header.tensor("v.class_embd").isPresent());
        assertEquals(16, spec.tokensPerImage());
    }

    @Test
    void aQwen2aProjectorHasAWhisperEncoderForAudioOnly() throws IOException {
        SynthProjector spec = SynthProjector.tiny("qwen2a", 64);
        GgufFile header = written(spec);
        var md = header.metadata();
        assertEquals(Boolean.TRUE, md.values().get("clip.has_audio_encoder"));
        assertEquals(Boolean.FALSE, md.values().get("clip.has_vision_encoder"));
        assertEquals(128L, md.integer("clip.audio.num_mel_bins").orElseThrow());
        assertEquals(32L, md.integer("clip.audio.embedding_length").orElseThrow());
        assertFalse(md.integer("clip.vision.image_size").isPresent());
        shape(header, "a.conv1d.1.weight", 3, 128, 32);
        shape(header, "a.conv1d.2.weight", 3, 32, 32);
        shape(header, "a.position_embd.weight", 32, 1500);
        shape(header, "a.blk.1.attn_q.bias", 32);
        assertFalse(header.tensor("a.blk.1.attn_k.bias").isPresent(), "whisper's keys have no bias");
        shape(header, "mm.a.fc.weight", 32, 64); // clip_n_mmproj_embd reads ne[1]
        assertFalse(header.tensor("v.patch_embd.weight").isPresent());
    }

    @Test
    void aQwen2vlMergerHasTwoPatchConvolutionsNoLearnedPositionsAndTheMerger() throws IOException {
        SynthProjector spec = SynthProjector.tiny("qwen2vl_merger", 64);
        GgufFile header = written(spec);
        var md = header.metadata();
        assertEquals(2L, md.integer("clip.vision.spatial_merge_size").orElseThrow());
        shape(header, "v.patch_embd.weight", 8, 8, 3, 32);
        shape(header, "v.patch_embd.weight.1", 8, 8, 3, 32);
        assertFalse(header.tensor("v.patch_embd.bias").isPresent(), "clip_graph_qwen2vl asserts there is none");
        assertFalse(header.tensor("v.class_embd").isPresent(), "clip_graph_qwen2vl asserts there is none");
        assertFalse(header.tensor("v.position_embd.weight").isPresent(), "positions are rotated, not learned");
        shape(header, "v.blk.1.ffn_down.weight", 48, 32); // ne[0] != embedding: not taken for swapped
        shape(header, "v.post_ln.weight", 32);
        shape(header, "mm.0.weight", 128, 128); // 2x2 merged patches
        shape(header, "mm.2.weight", 128, 64);
        shape(header, "mm.2.bias", 64); // clip_n_mmproj_embd reads its length
        assertEquals(16, spec.tokensPerImage(), "64x64: 8x8 patches, 4x4 merged");
        assertEquals(4, spec.positionsPerImage(), "M-RoPE: the longer side's merged patches");
        // M-RoPE rotates four sections of the head: its size must be a multiple of 4
        assertThrows(
                IllegalArgumentException.class, () -> new SynthProjector("qwen2vl_merger", 64, 36, 2, 2, 48, 64, 8, 1));
        assertThrows(
                IllegalArgumentException.class, () -> new SynthProjector("qwen2vl_merger", 64, 32, 2, 2, 48, 56, 8, 1));
    }

    @Test
    void aQwen25vlMergerHasRmsNormsAndAGatedFeedForward() throws IOException {
        SynthProjector spec = SynthProjector.tiny("qwen2.5vl_merger", 64);
        GgufFile header = written(spec);
        var md = header.metadata();
        assertEquals(0L, md.integer("clip.vision.n_wa_pattern").orElseThrow(), "clip.cpp requires it for 2.5");
        assertEquals(Boolean.TRUE, md.values().get("clip.use_silu"));
        shape(header, "v.blk.0.ffn_gate.weight", 32, 48);
        shape(header, "v.blk.0.ln1.weight", 32);
        assertFalse(header.tensor("v.blk.0.ln1.bias").isPresent(), "an RMS norm has no bias");
        shape(header, "mm.2.weight", 128, 64);
        assertEquals(4, spec.positionsPerImage());
    }

    @Test
    void anMlpProjectorHasAClipEncoderAndTheLlavaProjection() throws IOException {
        SynthProjector spec = SynthProjector.tiny("mlp", 96);
        GgufFile header = written(spec);
        shape(header, "v.class_embd", 32);
        shape(header, "v.position_embd.weight", 32, 17); // the class token and 4x4 patches
        shape(header, "v.pre_ln.weight", 32);
        shape(header, "mm.0.weight", 32, 96);
        shape(header, "mm.2.weight", 96, 96);
        shape(header, "mm.2.bias", 96); // clip_n_mmproj_embd reads its length
        assertEquals(16, spec.tokensPerImage());
    }

    @ParameterizedTest
    @CsvSource({
        "gemma3, false, false",
        "mlp, false, false",
        "qwen2a, true, false",
        "qwen2vl_merger, false, true",
        "qwen2.5vl_merger, false, true"
    })
    void aFamilyIsAnAudioEncoderOrPositionsByMRopeOrNeither(String family, boolean audio, boolean mrope) {
        SynthProjector spec = SynthProjector.tiny(family, 64);
        assertEquals(audio, spec.audio(), "audio");
        assertEquals(mrope, spec.mrope(), "M-RoPE");
    }

    @Test
    void theSameSpecWritesTheSameBytes() throws IOException {
        SynthProjector spec = SynthProjector.tiny("gemma3", 64);
        spec.write(dir.resolve("a.gguf"));
        spec.write(dir.resolve("b.gguf"));
        assertArrayEquals(Files.readAllBytes(dir.resolve("a.gguf")), Files.readAllBytes(dir.resolve("b.gguf")));
    }

    @Test
    void shapesClipCppCannotReadAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> SynthProjector.tiny("qwen2vl", 64));
        // an FFN as wide as the encoder would be taken for the legacy layout and swapped
        assertThrows(IllegalArgumentException.class, () -> new SynthProjector("mlp", 64, 32, 2, 2, 32, 32, 8, 1));
        // gemma3 pools 4x4 patches: the image must hold whole pools
        assertThrows(IllegalArgumentException.class, () -> new SynthProjector("gemma3", 64, 32, 2, 2, 48, 40, 8, 1));
        assertThrows(IllegalArgumentException.class, () -> new SynthProjector("mlp", 64, 30, 2, 4, 48, 32, 8, 1));
    }

    /**
     * {@code spec} written to a file of {@link #dir} and read back, a projector of its family;
     * every tiny projector stays small enough for the tests that load it (a few MB at most).
     */
    private GgufFile written(SynthProjector spec) throws IOException {
        Path file = dir.resolve("mmproj-" + spec.family() + ".gguf");
        spec.write(file);
        assertTrue(Files.size(file) < 4 << 20, "a few MB at most: " + Files.size(file));
        GgufFile header = GgufReader.read(file);
        assertEquals(
                spec.family(), header.metadata().string("clip.projector_type").orElseThrow());
        return header;
    }

    private static void shape(GgufFile header, String name, long... dims) {
        GgufTensorInfo t = header.tensor(name).orElseThrow(() -> new AssertionError("no tensor " + name));
        assertEquals(GgmlType.F32, t.type(), name);
        assertEquals(LongStream.of(dims).boxed().toList(), t.dims(), name);
    }
}
