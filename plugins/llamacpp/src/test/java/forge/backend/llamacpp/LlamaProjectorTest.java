package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.BackendException;
import forge.api.backend.ContextParams;
import forge.api.backend.FlashAttention;
import forge.api.backend.KvCacheType;
import forge.api.backend.LoadProgress;
import forge.api.backend.ModelLoadParams;
import forge.api.backend.TokenLogprobs;
import forge.api.backend.TokenSampler;
import forge.api.sampler.SamplingParams;
import forge.api.template.ChatImage;
import forge.backend.llamacpp.natives.LlamaNatives;
import forge.lib.gguf.synth.SynthImages;
import forge.lib.gguf.synth.SynthProjector;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * libmtmd through the binding: synthetic projectors of four families ({@code gemma3}, {@code mlp},
 * and {@code qwen2vl_merger} and {@code qwen2.5vl_merger}, which place images by M-RoPE) loaded beside a synthetic text model of
 * their width, prompts split into text and media chunks,
 * images encoded and decoded into a sequence, and every refusal that must come before native code
 * could abort.
 */
class LlamaProjectorTest {
    private static final long MAX_PIXELS = 4096L * 4096;
    private static final String PROMPT =
            "<start_of_turn>user\nLook: %s what is it?<end_of_turn>\n<start_of_turn>model\n";

    private static Path libmtmd;
    private static LlamaModel gemma3;
    private static LlamaModel mlp;
    /** A {@code qwen2vl} text model with a {@code qwen2vl_merger} projector: images placed by M-RoPE. */
    private static LlamaModel qwen2vl;
    /** The same text model with Qwen2.5-VL's projector ({@code qwen2.5vl_merger}). */
    private static LlamaModel qwen25vl;

    @BeforeAll
    static void load() {
        LlamaHome.backend();
        libmtmd = LlamaNatives.in(LlamaHome.lib())
                .mtmd()
                .orElseThrow(() -> new AssertionError("no libmtmd beside " + LlamaHome.lib() + " (mtmd.sh)"));
        gemma3 = model();
        gemma3.loadProjector(projector("gemma3", SynthProjector.tiny("gemma3", 64)), libmtmd, 2, false);
        mlp = model();
        mlp.loadProjector(projector("mlp", SynthProjector.tiny("mlp", 64)), libmtmd, 2, false);
        Path text = LlamaHome.models().resolve("tiny-qwen2vl.gguf");
        SyntheticModels.write(SynthSpec.tiny("qwen").withArchitecture("qwen2vl"), text);
        qwen2vl = (LlamaModel) LlamaHome.backend().load(ModelLoadParams.of(text), LoadProgress.NONE);
        qwen2vl.loadProjector(projector("qwen2vl", SynthProjector.tiny("qwen2vl_merger", 64)), libmtmd, 2, false);
        qwen25vl = (LlamaModel) LlamaHome.backend().load(ModelLoadParams.of(text), LoadProgress.NONE);
        qwen25vl.loadProjector(projector("qwen25vl", SynthProjector.tiny("qwen2.5vl_merger", 64)), libmtmd, 2, false);
    }

    @AfterAll
    static void close() {
        gemma3.close();
        mlp.close();
        qwen2vl.close();
        qwen25vl.close();
    }

    private static LlamaModel model() {
        return (LlamaModel) LlamaHome.loadTiny("gemma");
    }

    private static Path projector(String name, SynthProjector spec) {
        Path out = LlamaHome.models().resolve("mmproj-" + name + ".gguf");
        spec.write(out);
        return out;
    }

    private static LlamaContext context(LlamaModel model) {
        return (LlamaContext) model.newContext(
                new ContextParams(512, 128, 128, 1, 2, 2, FlashAttention.AUTO, KvCacheType.F16, true, false));
    }

    private static String prompt(LlamaProjector projector, int images) {
        return PROMPT.formatted(String.join(" and ", Collections.nCopies(images, projector.marker())));
    }

    @Test
    void aGemma3ProjectorSplitsThePromptAroundOneImageOfSixteenEmbeddings() {
        LlamaProjector projector = gemma3.projector().orElseThrow();
        assertTrue(projector.vision());
        assertFalse(projector.audio());
        byte[] png = SynthImages.png(100, 80, 1);
        try (MediaPrompt prompt =
                projector.tokenize(prompt(projector, 1), List.of(ChatImage.of(png)), true, MAX_PIXELS)) {
            List<MediaPrompt.Chunk> chunks = prompt.chunks();
            assertEquals(3, chunks.size(), chunks.toString());
            assertInstanceOf(MediaPrompt.Text.class, chunks.get(0));
            MediaPrompt.Media image = assertInstanceOf(MediaPrompt.Media.class, chunks.get(1));
            assertEquals(MediaPrompt.Kind.IMAGE, image.kind());
            assertEquals(SynthProjector.tiny("gemma3", 64).tokensPerImage(), image.embeddings());
            assertEquals(16, image.positions());
            assertEquals(ChatImage.sha256(png), image.id(), "an image is named by the hash of its bytes");
            assertInstanceOf(MediaPrompt.Text.class, chunks.get(2));
            // gemma3 wraps the image in <start_of_image> ... <end_of_image>, tokenized as the text around it
            int[] text = ((MediaPrompt.Text) chunks.get(0)).ids();
            int[] plain = gemma3.vocabulary()
                    .tokenize(
                            prompt(projector, 1)
                                            .substring(0, prompt(projector, 1).indexOf(projector.marker()))
                                    + "<start_of_image>",
                            true,
                            true);
            assertArrayEquals(plain, text);
            assertEquals(
                    text.length + 16 + ((MediaPrompt.Text) chunks.get(2)).ids().length,
                    prompt.tokenCount(),
                    "media embeddings count as tokens");
        }
    }

    @Test
    void anMlpProjectorMakesOneMediaChunkPerImage() {
        LlamaProjector projector = mlp.projector().orElseThrow();
        List<ChatImage> images =
                List.of(ChatImage.of(SynthImages.png(40, 40, 2)), ChatImage.of(SynthImages.png(64, 20, 3)));
        try (MediaPrompt prompt = projector.tokenize(prompt(projector, 2), images, true, MAX_PIXELS)) {
            List<MediaPrompt.Media> media = prompt.chunks().stream()
                    .filter(MediaPrompt.Media.class::isInstance)
                    .map(MediaPrompt.Media.class::cast)
                    .toList();
            assertEquals(2, media.size());
            assertEquals(
                    List.of(16, 16),
                    media.stream().map(MediaPrompt.Media::embeddings).toList());
            assertNotEquals(media.get(0).id(), media.get(1).id());
        }
    }

    /**
     * A projector that places images by M-RoPE: an image of 4x3 merged patches is 12 embeddings at
     * 4 positions, and the prompt's positions are fewer than its tokens by the difference.
     */
    @Test
    void aQwen2vlImageTakesAnEmbeddingPerMergedPatchAndThePositionsOfItsLongerSide() {
        LlamaProjector projector = qwen2vl.projector().orElseThrow();
        byte[] png = SynthImages.png(64, 48, 6);
        try (MediaPrompt prompt =
                projector.tokenize(prompt(projector, 1), List.of(ChatImage.of(png)), true, MAX_PIXELS)) {
            MediaPrompt.Media image = prompt.chunks().stream()
                    .filter(MediaPrompt.Media.class::isInstance)
                    .map(MediaPrompt.Media.class::cast)
                    .findFirst()
                    .orElseThrow();
            assertEquals(12, image.embeddings(), "64x48 pixels: 8x6 patches of 8, merged 2x2");
            assertEquals(4, image.positions());
            assertEquals(prompt.tokenCount() - 8, prompt.positions());
            assertEquals(4, prompt.media().getFirst().positions(), "the engine's view carries them");
            assertEquals(12, prompt.media().getFirst().length());
        }
    }

    /**
     * The image reaches the model: the same prompt and image give the same next-token
     * distribution in a fresh context, and another image another one.
     */
    @Test
    void anEvaluatedImageDecidesTheNextTokenDeterministically() {
        for (LlamaModel model : List.of(gemma3, mlp, qwen2vl, qwen25vl)) {
            float[] first = logprobsAfter(model, SynthImages.png(64, 64, 4));
            float[] again = logprobsAfter(model, SynthImages.png(64, 64, 4));
            float[] other = logprobsAfter(model, SynthImages.png(64, 64, 5));
            assertArrayEquals(first, again, model.path() + ": same image, same distribution");
            assertFalse(Arrays.equals(first, other), model.path() + ": another image, another distribution");
        }
    }

    private static float[] logprobsAfter(LlamaModel model, byte[] png) {
        LlamaProjector projector = model.projector().orElseThrow();
        try (MediaPrompt prompt =
                projector.tokenize(prompt(projector, 1), List.of(ChatImage.of(png)), true, MAX_PIXELS)) {
            return logprobsAfter(model, prompt);
        }
    }

    /** The top of the next-token distribution once {@code prompt} is evaluated into a fresh context. */
    private static float[] logprobsAfter(LlamaModel model, MediaPrompt prompt) {
        LlamaProjector projector = model.projector().orElseThrow();
        try (LlamaContext ctx = context(model);
                TokenSampler sampler = ctx.sampler(SamplingParams.GREEDY)) {
            LlamaProjector.Evaluation done = projector.eval(ctx, prompt, 0, 0, 0, true);
            assertEquals(prompt.positions(), done.position());
            assertEquals(prompt.positions() - 1, ctx.maxPosition(0));
            int token = sampler.sample(done.logitsIndex());
            return top5(ctx.logprobs(done.logitsIndex(), token, 5));
        }
    }

    /**
     * A returning turn: an image decoded before is split from its size alone (no pixel decoded, no
     * preprocessing) into the same chunks as the first time, and when its chunk must be encoded after
     * all (its cells were evicted) it is decoded then, giving the same distribution as the first
     * split; one decode per encode, none per split.
     */
    @Test
    void anImageDecodedBeforeIsSplitFromItsSizeAndDecodedOnlyToBeEncoded() {
        int seed = 20;
        for (LlamaModel model : List.of(gemma3, mlp)) {
            LlamaProjector projector = model.projector().orElseThrow();
            ChatImage image = ChatImage.of(SynthImages.png(72, 40, seed++));
            String text = prompt(projector, 1);
            long decodes = projector.pixelDecodes();
            try (MediaPrompt first = projector.tokenize(text, List.of(image), true, MAX_PIXELS)) {
                assertEquals(decodes + 1, projector.pixelDecodes(), "a new image is decoded");
                float[] encoded = logprobsAfter(model, first);
                assertEquals(decodes + 1, projector.pixelDecodes(), "a chunk split with pixels is encoded as it is");
                try (MediaPrompt again = projector.tokenize(text, List.of(image), true, MAX_PIXELS)) {
                    assertEquals(decodes + 1, projector.pixelDecodes(), model.path() + ": the image was decoded again");
                    assertArrayEquals(first.tokens(), again.tokens(), "the same placeholders and text tokens");
                    assertEquals(first.media(), again.media());
                    assertEquals(first.positions(), again.positions());
                    try (MediaPrompt third = projector.tokenize(text, List.of(image), true, MAX_PIXELS)) {
                        assertEquals(decodes + 1, projector.pixelDecodes());
                        assertArrayEquals(first.tokens(), third.tokens());
                    }
                    assertArrayEquals(encoded, logprobsAfter(model, again), "the same image reaches the model");
                    assertEquals(decodes + 2, projector.pixelDecodes(), "encoding it decodes it once");
                    assertArrayEquals(encoded, logprobsAfter(model, again));
                    assertEquals(decodes + 2, projector.pixelDecodes(), "the prompt keeps its second split");
                }
                // its header is still checked against the request's limit
                BackendException e = assertThrows(
                        BackendException.class, () -> projector.tokenize(text, List.of(image), true, 72 * 40 - 1));
                assertTrue(e.getMessage().contains("is 72x40 pixels"), e.getMessage());
            }
        }
    }

    /** Extreme shapes are resized like any other image: nothing about a size reaches an assertion. */
    @Test
    void oddShapesEncodeLikeAnyImage() {
        for (LlamaModel model : List.of(gemma3, mlp)) {
            for (int[] size : new int[][] {{1, 1}, {3000, 1}, {1, 2000}, {7, 5}}) {
                float[] out = logprobsAfter(model, SynthImages.png(size[0], size[1], 9));
                assertTrue(out.length > 0, model.path() + " " + size[0] + "x" + size[1]);
            }
        }
    }

    @Test
    void aProjectorWhoseEmbeddingIsNotTheModelsIsRefusedAtLoad() {
        LlamaModel model = model();
        try {
            Path wide = projector("mlp-96", SynthProjector.tiny("mlp", 64).withTextEmbedding(96));
            BackendException e =
                    assertThrows(BackendException.class, () -> model.loadProjector(wide, libmtmd, 2, false));
            assertTrue(
                    e.getMessage().contains("mismatch between text model (n_embd = 64) and mmproj (n_embd = 96)"),
                    e.getMessage());
            assertTrue(model.projector().isEmpty());
        } finally {
            model.close();
        }
    }

    @Test
    void badImagesAreRefusedBeforeAnyPixelIsDecoded() {
        LlamaProjector projector = gemma3.projector().orElseThrow();
        String one = prompt(projector, 1);
        byte[] png = SynthImages.png(32, 32, 6);
        assertRefused(projector, one, "noise".getBytes(), "image 0 is not in a supported format");
        byte[] webp = {'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', ' '};
        assertRefused(projector, one, webp, "WebP is not supported");
        assertRefused(projector, one, Arrays.copyOf(png, png.length / 2), "does not decode"); // truncated in its data
        // a bomb: a header claiming 100000 x 100000 pixels in a few bytes
        assertRefused(projector, one, SynthImages.png(100_000, 100_000, new byte[16]), "is 100000x100000 pixels");
        // markers and images must pair up
        BackendException e = assertThrows(
                BackendException.class,
                () -> projector.tokenize(prompt(projector, 2), List.of(ChatImage.of(png)), true, MAX_PIXELS));
        assertTrue(e.getMessage().contains("2 media markers for 1 images"), e.getMessage());
        // and the projector still works
        try (MediaPrompt ok = projector.tokenize(one, List.of(ChatImage.of(png)), true, MAX_PIXELS)) {
            assertEquals(3, ok.size());
        }
    }

    private static void assertRefused(LlamaProjector projector, String prompt, byte[] image, String why) {
        BackendException e = assertThrows(
                BackendException.class,
                () -> projector.tokenize(prompt, List.of(ChatImage.of(image)), true, MAX_PIXELS));
        assertTrue(e.getMessage().contains(why), e.getMessage());
    }

    @Test
    void closingTheModelFreesItsProjector() {
        LlamaModel model = model();
        LlamaProjector projector =
                model.loadProjector(projector("gemma3-closing", SynthProjector.tiny("gemma3", 64)), libmtmd, 2, false);
        assertThrows(
                BackendException.class,
                () -> model.loadProjector(projector.path(), libmtmd, 2, false),
                "a model holds one projector");
        model.close();
        BackendException e =
                assertThrows(BackendException.class, () -> projector.tokenize("x", List.of(), true, MAX_PIXELS));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    /** The five most likely tokens after a prompt, flat: id, log-probability, id, ..., for comparing two runs exactly. */
    static float[] top5(TokenLogprobs lp) {
        float[] out = new float[lp.top().size() * 2];
        for (int i = 0; i < lp.top().size(); i++) {
            out[2 * i] = lp.top().get(i).id();
            out[2 * i + 1] = lp.top().get(i).logprob();
        }
        return out;
    }
}
