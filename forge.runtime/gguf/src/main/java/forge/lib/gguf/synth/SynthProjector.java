package forge.lib.gguf.synth;

import forge.lib.gguf.GgmlType;
import forge.lib.gguf.GgufValue;
import forge.lib.gguf.GgufWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A synthetic multimodal projector ({@code mmproj}): a random-weight vision encoder and projector
 * GGUF that llama.cpp's {@code libmtmd} loads beside a text model whose width is
 * {@link #textEmbedding}, as it loads the {@code mmproj-*.gguf} of a real vision model's repository.
 *
 * <p>The keys and tensors are the ones {@code clip.cpp}'s {@code load_hparams} and
 * {@code load_tensors} read in llama.cpp v0.5.0 ({@code tools/mtmd/clip.cpp}, names in
 * {@code clip-impl.h}), for two families whose image preprocessing needs no special tokens in
 * the text model's vocabulary:
 *
 * <ul>
 * <li>{@code gemma3}: a SigLIP encoder (patch embedding with bias, learned positions, pre-norm
 *     blocks with biases, GELU, a final {@code post_ln}), then {@code clip_graph_siglip}'s 2D average
 *     pool by {@link #MERGE} per side, an RMS norm ({@code mm.soft_emb_norm.weight}) and the
 *     projection {@code mm.input_projection.weight} of shape {@code [textEmbedding, embedding]};
 *     {@code clip_n_mmproj_embd} is its {@code ne[0]}. One image is
 *     {@code (imageSize / patchSize / 4)^2} tokens between {@code <start_of_image>} and
 *     {@code <end_of_image>}, which the text model reads as plain text.</li>
 * <li>{@code mlp} (LLaVA 1.5): a CLIP encoder (class embedding, learned positions for the class
 *     token and every patch, {@code pre_ln}, blocks with biases, GELU); {@code clip_graph_llava}
 *     stops one block before the last, drops the class token and projects through
 *     {@code mm.0} (to {@code textEmbedding}), GELU and {@code mm.2}; {@code clip_n_mmproj_embd} is
 *     {@code mm.2.bias}'s length. One image is {@code (imageSize / patchSize)^2} tokens, no markers.</li>
 * <li>{@code qwen2a} (Qwen2-Audio), an audio projector: a Whisper encoder ({@code clip_graph_whisper_enc}:
 *     two 1D convolutions over {@link #MEL_BINS} mel bins, the second of stride 2, GELU; learned
 *     positions for {@link #AUDIO_POSITIONS}; pre-norm blocks with biases but none on
 *     {@code attn_k}, which the graph asserts; a 2-wide average pool; {@code post_ln}), then
 *     {@code mm.a.fc} to {@code textEmbedding}. libmtmd reads it as audio only
 *     ({@code clip.has_audio_encoder}); a clip becomes {@link #TOKENS_PER_AUDIO_WINDOW} tokens per
 *     30-second window between {@code <|audio_bos|>} and {@code <|audio_eos|>} (plain text to a
 *     vocabulary without them). {@code imageSize} and {@code patchSize} mean nothing to it.</li>
 * <li>{@code qwen2vl_merger} (Qwen2-VL), a projector that places images by M-RoPE: two patch
 *     convolutions without bias ({@code v.patch_embd.weight} and {@code .weight.1}, the two frames
 *     of a temporal patch, which a still image feeds both), no class token and no learned positions
 *     ({@code clip_graph_qwen2vl} rotates by the patch's row and column), pre-norm blocks with
 *     biases, GELU, {@code post_ln}, then 2x2 patches merged and projected through {@code mm.0}
 *     ({@code 4 * embedding} wide), GELU and {@code mm.2} to {@code textEmbedding}. Images keep
 *     their aspect (resized to multiples of {@code 2 * patchSize}, at least 8 and at most 4096
 *     tokens, as Qwen's preprocessor), and an image of {@code w x h} merged patches is {@code w * h}
 *     embeddings at {@code max(w, h)} positions of a {@code qwen2vl} text model, between
 *     {@code <|vision_start|>} and {@code <|vision_end|>}. The head size must be a multiple of 4
 *     (four rotary sections). libmtmd warms it up with an image of 46x46 merged patches (some
 *     seconds for the tiny one).</li>
 * <li>{@code qwen2.5vl_merger} (Qwen2.5-VL): the same tower and merger placed the same way, with
 *     Qwen2.5-VL's RMS norms (weights only) and gated SiLU feed-forward ({@code ffn_gate});
 *     {@code clip.vision.n_wa_pattern} is 0, so every block attends to the whole image (the real
 *     model's windowed blocks are a cost of the encoder, not of where the text model places the
 *     image).</li>
 * </ul>
 *
 * <p>The feed-forward width must differ from the encoder's width: {@code clip.cpp} swaps up and
 * down projections it finds in the legacy layout ({@code ffn_down.ne[0] == embedding}).
 * Everything is F32 (a few MB), from the same seeded generator as {@link SyntheticModels}: the
 * same spec always gives the same bytes.
 *
 * {@snippet :
 * SyntheticModels.write(SynthSpec.tiny("gemma"), dir.resolve("tiny-gemma.gguf"));            // 64 wide
 * SynthProjector.tiny("gemma3", 64).write(dir.resolve("mmproj-tiny-gemma.gguf"));             // 16 tokens an image
 * }
 *
 * @param family        {@code gemma3}, {@code mlp}, {@code qwen2a}, {@code qwen2vl_merger} or
 *                      {@code qwen2.5vl_merger}
 * @param textEmbedding the width of the text model the projector feeds ({@code n_embd_inp})
 * @param embedding     the encoder's width, a multiple of {@code heads}
 * @param layers        encoder blocks, 2 to 64
 * @param heads         attention heads of the encoder
 * @param ffn           the encoder's feed-forward width, not equal to {@code embedding}
 * @param imageSize     the side of the square the encoder sees, a multiple of {@code patchSize}
 *                      (and for {@code gemma3} of {@code patchSize * 4}, for {@code qwen2vl_merger}
 *                      of {@code patchSize * 2})
 * @param patchSize     the side of one patch
 * @param seed          the seed of the random weights
 */
public record SynthProjector(
        String family,
        int textEmbedding,
        int embedding,
        int layers,
        int heads,
        int ffn,
        int imageSize,
        int patchSize,
        long seed) {

    /** The projector families a synthetic projector can have ({@code clip.projector_type}). */
    public static final List<String> FAMILIES =
            List.of("gemma3", "mlp", "qwen2a", "qwen2vl_merger", "qwen2.5vl_merger");

    /** The families that place an image by M-RoPE: their text model has the {@code qwen2vl} architecture. */
    public static final List<String> MROPE_FAMILIES = List.of("qwen2vl_merger", "qwen2.5vl_merger");

    /** The audio families among {@link #FAMILIES}: their projector reads audio, not images. */
    public static final List<String> AUDIO_FAMILIES = List.of("qwen2a");

    /** The mel bins of an audio projector's input (Qwen2-Audio's Whisper encoder has 128). */
    public static final int MEL_BINS = 128;

    /**
     * The positions an audio encoder has: a 30-second window is 3000 mel frames (16 kHz, hop
     * 160), 1500 after the stride-2 convolution; the warm-up at load runs a whole window.
     */
    public static final int AUDIO_POSITIONS = 1500;

    /** The embeddings one 30-second window of audio becomes: its positions, halved by the average pool. */
    public static final int TOKENS_PER_AUDIO_WINDOW = AUDIO_POSITIONS / 2;

    /** Gemma 3's pooling factor per side ({@code clip.cpp}'s default {@code n_merge} for gemma3). */
    public static final int MERGE = 4;

    public SynthProjector {
        Objects.requireNonNull(family, "family");
        if (!FAMILIES.contains(family)) {
            throw new IllegalArgumentException("family must be one of " + FAMILIES + ", not '" + family + "'");
        }
        for (int v : new int[] {textEmbedding, embedding, heads, ffn, imageSize, patchSize}) {
            if (v <= 0) {
                throw new IllegalArgumentException("every width and size must be positive");
            }
        }
        if (layers < 2 || layers > 64) {
            // mlp reads the features one block before the last
            throw new IllegalArgumentException("layers must be 2 to 64, not " + layers);
        }
        if (embedding % heads != 0) {
            throw new IllegalArgumentException("heads (" + heads + ") must divide embedding (" + embedding + ")");
        }
        if (ffn == embedding) {
            throw new IllegalArgumentException("ffn must differ from embedding (clip.cpp would swap up and down)");
        }
        boolean mrope = MROPE_FAMILIES.contains(family); // the parameter: the fields are not set yet
        if (mrope && (embedding / heads) % 4 != 0) {
            throw new IllegalArgumentException("the head size embedding/heads = " + embedding / heads
                    + " must be a multiple of 4 (M-RoPE's sections)");
        }
        int side = family.equals("gemma3")
                ? patchSize * MERGE
                : mrope ? patchSize * 2 : patchSize; // qwen2a: read by no one
        if (imageSize % side != 0) {
            throw new IllegalArgumentException("imageSize (" + imageSize + ") must be a multiple of " + side);
        }
    }

    /**
     * A tiny projector for tests: a 32-wide encoder of 2 blocks and 2 heads, FFN 48, 8-pixel
     * patches; {@code gemma3} sees 128x128 images (16 tokens each: 16x16 patches pooled by 4),
     * {@code mlp} 32x32 (16 tokens each: 4x4 patches), {@code qwen2vl_merger} 64x64 (16 tokens at 4
     * positions: 8x8 patches merged by 2x2).
     */
    public static SynthProjector tiny(String family, int textEmbedding) {
        int imageSize = "gemma3".equals(family) ? 128 : MROPE_FAMILIES.contains(family) ? 64 : 32;
        return new SynthProjector(family, textEmbedding, 32, 2, 2, 48, imageSize, 8, 7);
    }

    /**
     * A projector for benchmarks, whose encode costs what a small real one's does: an encoder
     * {@code embedding} wide ({@code embedding / 64} heads, at least 2; FFN 4x) of {@code layers}
     * blocks over {@code imageSize}-pixel images in 14-pixel patches, as SigLIP's (so
     * {@code imageSize} is a multiple of 56 for {@code gemma3}, of 14 for {@code mlp}).
     */
    public static SynthProjector sized(String family, int textEmbedding, int embedding, int layers, int imageSize) {
        return new SynthProjector(
                family, textEmbedding, embedding, layers, Math.max(2, embedding / 64), 4 * embedding, imageSize, 14, 7);
    }

    /** This spec with another text width (a projector that does not fit its model, for tests of the refusal). */
    public SynthProjector withTextEmbedding(int width) {
        return new SynthProjector(family, width, embedding, layers, heads, ffn, imageSize, patchSize, seed);
    }

    /** The patches along one side of the image. */
    public int patchesPerSide() {
        return imageSize / patchSize;
    }

    /**
     * How many embeddings (cells of the text model's context) one image of {@code imageSize} square
     * becomes (a vision family's).
     */
    public int tokensPerImage() {
        int side = patchesPerSide();
        return family.equals("gemma3")
                ? (side / MERGE) * (side / MERGE)
                : mrope() ? (side / 2) * (side / 2) : side * side;
    }

    /**
     * How many positions one image of {@code imageSize} square advances the text by: its
     * {@link #tokensPerImage()} but with M-RoPE, where it is the merged patches along its longer side.
     */
    public int positionsPerImage() {
        return mrope() ? patchesPerSide() / 2 : tokensPerImage();
    }

    /** Whether this projector places images by M-RoPE (its text model is a {@code qwen2vl} one). */
    public boolean mrope() {
        return MROPE_FAMILIES.contains(family);
    }

    /** Whether this projector reads audio (and not images). */
    public boolean audio() {
        return AUDIO_FAMILIES.contains(family);
    }

    /** Writes the projector to {@code out}. */
    public void write(Path out) {
        writer().write(out);
    }

    /** The writer of this projector, ready to {@link GgufWriter#write(Path)}. */
    public GgufWriter writer() {
        if (audio()) {
            return audioWriter();
        }
        if (mrope()) {
            return mropeWriter();
        }
        boolean gemma3 = family.equals("gemma3");
        GgufWriter w = header(false);
        visionKeys(w, "clip.use_gelu");
        w.put("clip.vision.image_mean", GgufValue.float32s(0.5f, 0.5f, 0.5f));
        w.put("clip.vision.image_std", GgufValue.float32s(0.5f, 0.5f, 0.5f));

        long e = embedding;
        long patches = (long) patchesPerSide() * patchesPerSide();
        // ggml's conv_2d kernel: [KW, KH, C_in, C_out]
        tensor(w, "v.patch_embd.weight", patchSize, patchSize, 3, e);
        if (gemma3) {
            tensor(w, "v.patch_embd.bias", e);
            tensor(w, "v.position_embd.weight", e, patches);
        } else {
            tensor(w, "v.class_embd", e);
            tensor(w, "v.position_embd.weight", e, patches + 1);
            norm(w, "v.pre_ln", e);
        }
        for (int i = 0; i < layers; i++) {
            block(w, "v.blk." + i + ".", (prefix) -> norm(w, prefix, e), false, true);
        }
        if (gemma3) {
            norm(w, "v.post_ln", e);
            w.tensor("mm.soft_emb_norm.weight", GgmlType.F32, new long[] {e}, SyntheticModels.ones());
            tensor(w, "mm.input_projection.weight", textEmbedding, e);
        } else {
            tensor(w, "mm.0.weight", e, textEmbedding);
            tensor(w, "mm.0.bias", textEmbedding);
            tensor(w, "mm.2.weight", textEmbedding, textEmbedding);
            tensor(w, "mm.2.bias", textEmbedding);
        }
        return w;
    }

    /**
     * {@code qwen2vl_merger} and {@code qwen2.5vl_merger}: Qwen2-VL's and Qwen2.5-VL's vision tower
     * and merger, as {@code clip.cpp} loads them.
     */
    private GgufWriter mropeWriter() {
        boolean qwen25 = family.equals("qwen2.5vl_merger");
        GgufWriter w = header(false);
        visionKeys(w, qwen25 ? "clip.use_silu" : "clip.use_gelu");
        w.put("clip.vision.spatial_merge_size", GgufValue.uint32(2));
        if (qwen25) {
            w.put("clip.vision.n_wa_pattern", GgufValue.uint32(0)); // clip.cpp requires it for 2.5
        }
        w.put("clip.vision.image_mean", GgufValue.float32s(0.5f, 0.5f, 0.5f));
        w.put("clip.vision.image_std", GgufValue.float32s(0.5f, 0.5f, 0.5f));

        long e = embedding;
        // ggml's conv_2d kernel: [KW, KH, C_in, C_out]; one per frame of a temporal patch, no bias
        tensor(w, "v.patch_embd.weight", patchSize, patchSize, 3, e);
        tensor(w, "v.patch_embd.weight.1", patchSize, patchSize, 3, e);
        for (int i = 0; i < layers; i++) {
            block(w, "v.blk." + i + ".", (prefix) -> mropeNorm(w, prefix, qwen25), qwen25, true);
        }
        mropeNorm(w, "v.post_ln", qwen25);
        // the merger: 2x2 patches side by side (4 * embedding), an MLP to the text model's width
        tensor(w, "mm.0.weight", 4 * e, 4 * e);
        tensor(w, "mm.0.bias", 4 * e);
        tensor(w, "mm.2.weight", 4 * e, textEmbedding);
        tensor(w, "mm.2.bias", textEmbedding);
        return w;
    }

    /** A layer norm with bias (Qwen2-VL), or Qwen2.5-VL's RMS norm, a weight only. */
    private void mropeNorm(GgufWriter w, String prefix, boolean rms) {
        if (rms) {
            w.tensor(prefix + ".weight", GgmlType.F32, new long[] {embedding}, SyntheticModels.ones());
        } else {
            norm(w, prefix, embedding);
        }
    }

    /** {@code qwen2a}: the Whisper encoder's keys and tensors under {@code clip.audio.*} and {@code a.*}. */
    private GgufWriter audioWriter() {
        GgufWriter w = header(true);
        encoderKeys(w, "clip.audio", 1e-5f);
        w.put("clip.audio.num_mel_bins", GgufValue.uint32(MEL_BINS));

        long e = embedding;
        // ggml's conv_1d kernel: [K, C_in, C_out]; the bias broadcasts over the frames
        tensor(w, "a.conv1d.1.weight", 3, MEL_BINS, e);
        tensor(w, "a.conv1d.1.bias", 1, e);
        tensor(w, "a.conv1d.2.weight", 3, e, e);
        tensor(w, "a.conv1d.2.bias", 1, e);
        tensor(w, "a.position_embd.weight", e, AUDIO_POSITIONS);
        for (int i = 0; i < layers; i++) {
            // Whisper's key projection has no bias
            block(w, "a.blk." + i + ".", (prefix) -> norm(w, prefix, e), false, false);
        }
        norm(w, "a.post_ln", e);
        tensor(w, "mm.a.fc.weight", e, textEmbedding);
        tensor(w, "mm.a.fc.bias", textEmbedding);
        return w;
    }

    /**
     * The keys every projector file starts with: a {@code clip} file of this family, all F32,
     * with a vision or an audio encoder.
     */
    private GgufWriter header(boolean audio) {
        GgufWriter w = new GgufWriter();
        w.put("general.architecture", GgufValue.string("clip"));
        w.put("general.type", GgufValue.string("mmproj"));
        w.put("general.name", GgufValue.string("forge-synth-mmproj-" + family));
        w.put("general.file_type", GgufValue.uint32(0)); // all F32
        w.put("clip.has_vision_encoder", GgufValue.bool(!audio));
        if (audio) {
            w.put("clip.has_audio_encoder", GgufValue.bool(true));
        }
        w.put("clip.projector_type", GgufValue.string(family));
        return w;
    }

    /** The vision tower's sizes under {@code clip.vision.*}, after its activation's key. */
    private void visionKeys(GgufWriter w, String activation) {
        w.put(activation, GgufValue.bool(true));
        encoderKeys(w, "clip.vision", 1e-6f);
        w.put("clip.vision.image_size", GgufValue.uint32(imageSize));
        w.put("clip.vision.patch_size", GgufValue.uint32(patchSize));
    }

    /**
     * The sizes clip.cpp reads alike for either encoder, under {@code prefix} ({@code clip.vision}
     * or {@code clip.audio}), in the order both writers have always put them.
     */
    private void encoderKeys(GgufWriter w, String prefix, float layerNormEpsilon) {
        w.put(prefix + ".embedding_length", GgufValue.uint32(embedding));
        w.put(prefix + ".feed_forward_length", GgufValue.uint32(ffn));
        w.put(prefix + ".block_count", GgufValue.uint32(layers));
        w.put(prefix + ".projection_dim", GgufValue.uint32(textEmbedding));
        w.put(prefix + ".attention.head_count", GgufValue.uint32(heads));
        w.put(prefix + ".attention.layer_norm_epsilon", GgufValue.float32(layerNormEpsilon));
    }

    /**
     * One encoder block under {@code blk}: norm, attention (query, key, value, output, each with a
     * bias but the key where {@code keyBias} is false), norm, and the feed-forward (with a gate
     * where {@code gated}).
     */
    private void block(GgufWriter w, String blk, Consumer<String> norm, boolean gated, boolean keyBias) {
        long e = embedding;
        norm.accept(blk + "ln1");
        for (String attn : List.of("attn_q", "attn_k", "attn_v", "attn_out")) {
            tensor(w, blk + attn + ".weight", e, e);
            if (keyBias || !attn.equals("attn_k")) {
                tensor(w, blk + attn + ".bias", e);
            }
        }
        norm.accept(blk + "ln2");
        if (gated) {
            tensor(w, blk + "ffn_gate.weight", e, ffn);
            tensor(w, blk + "ffn_gate.bias", ffn);
        }
        tensor(w, blk + "ffn_up.weight", e, ffn);
        tensor(w, blk + "ffn_up.bias", ffn);
        tensor(w, blk + "ffn_down.weight", ffn, e);
        tensor(w, blk + "ffn_down.bias", e);
    }

    private void tensor(GgufWriter w, String name, long... dims) {
        w.tensor(name, GgmlType.F32, dims, SyntheticModels.random(seed, name));
    }

    private static void norm(GgufWriter w, String prefix, long width) {
        w.tensor(prefix + ".weight", GgmlType.F32, new long[] {width}, SyntheticModels.ones());
        w.tensor(prefix + ".bias", GgmlType.F32, new long[] {width}, SyntheticModels.ones());
    }
}
