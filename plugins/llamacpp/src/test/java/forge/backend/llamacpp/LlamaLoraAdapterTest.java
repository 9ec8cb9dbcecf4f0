package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.BackendException;
import forge.api.backend.AdapterScale;
import forge.api.backend.ContextParams;
import forge.api.backend.FlashAttention;
import forge.api.backend.InferenceContext;
import forge.api.backend.KvCacheType;
import forge.api.backend.LoadedModel;
import forge.api.backend.LoraAdapter;
import forge.api.backend.TokenBatch;
import forge.api.backend.TokenSampler;
import forge.api.sampler.SamplingParams;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** LoRA adapters through libllama: loaded for a model, applied per decode at a scale, refused for another base. */
class LlamaLoraAdapterTest {

    @TempDir
    static Path dir;

    private static LoadedModel model;
    private static LoraAdapter adapter;
    private static int[] prompt;

    @BeforeAll
    static void load() {
        model = LlamaHome.loadTiny("qwen");
        Path file = dir.resolve("tiny-qwen-lora.gguf");
        SyntheticModels.writeLora(SynthSpec.tiny("qwen"), 8, 8f, 1, file);
        adapter = model.loadAdapter(file);
        prompt = model.vocabulary().tokenize("<|im_start|>user\nHello there<|im_end|>\n", false, true);
    }

    @AfterAll
    static void close() {
        model.close();
    }

    /** Greedy tokens after the prompt, decoded with {@code set} applied. */
    private static int[] greedy(InferenceContext ctx, List<AdapterScale> set) {
        ctx.clearMemory();
        ctx.adapters(set);
        try (TokenSampler s = ctx.sampler(SamplingParams.GREEDY)) {
            TokenBatch b = ctx.batch();
            b.clear();
            int index = 0;
            for (int i = 0; i < prompt.length; i++) {
                index = b.add(prompt[i], i, 0, i == prompt.length - 1);
            }
            ctx.decode();
            int[] out = new int[12];
            for (int i = 0; i < out.length; i++) {
                out[i] = s.sample(index);
                b.clear();
                index = b.add(out[i], prompt.length + i, 0, true);
                ctx.decode();
            }
            return out;
        }
    }

    @Test
    void theOutputChangesWithTheAdapterAndItsScaleAndScaleZeroIsNoAdapter() {
        assertEquals(8f, adapter.alpha());
        try (InferenceContext ctx = model.newContext(
                new ContextParams(256, 64, 64, 1, 2, 2, FlashAttention.AUTO, KvCacheType.F16, false, false))) {
            int[] plain = greedy(ctx, List.of());
            int[] full = greedy(ctx, List.of(new AdapterScale(adapter, 1f)));
            int[] half = greedy(ctx, List.of(new AdapterScale(adapter, 0.5f)));
            int[] zero = greedy(ctx, List.of(new AdapterScale(adapter, 0f)));
            assertFalse(Arrays.equals(plain, full), "the adapter changes the output");
            assertFalse(Arrays.equals(full, half), "and so does its scale");
            assertArrayEquals(plain, zero, "scale 0 is no adapter");
            assertArrayEquals(plain, greedy(ctx, List.of()), "taking it off again gives the base model's output");
            assertArrayEquals(full, greedy(ctx, List.of(new AdapterScale(adapter, 1f))));
        }
    }

    @Test
    void anAdapterForAnotherBaseIsRefusedWithTheReason() {
        Path wide = dir.resolve("wide-lora.gguf");
        SyntheticModels.writeLora(SynthSpec.tiny("qwen").withShape(128, 2, 4, 2, 128), 4, 4f, 1, wide);
        BackendException e = assertThrows(BackendException.class, () -> model.loadAdapter(wide));
        assertTrue(
                e.getMessage().contains("does not fit the model")
                        && e.getMessage().contains("another shape"),
                e.getMessage());
        Path llama = dir.resolve("llama-lora.gguf");
        SyntheticModels.writeLora(SynthSpec.tiny("llama"), 4, 4f, 1, llama);
        e = assertThrows(BackendException.class, () -> model.loadAdapter(llama));
        assertTrue(e.getMessage().contains("made for architecture 'llama', the model is 'qwen2'"), e.getMessage());
    }

    @Test
    void aContextAppliesOnlyItsOwnModelsAdapters() {
        try (LoadedModel other = LlamaHome.loadTiny("qwen");
                InferenceContext ctx = other.newContext(
                        new ContextParams(256, 64, 64, 1, 2, 2, FlashAttention.AUTO, KvCacheType.F16, false, false))) {
            BackendException e =
                    assertThrows(BackendException.class, () -> ctx.adapters(List.of(new AdapterScale(adapter, 1f))));
            assertTrue(e.getMessage().contains("not one of this context's model"), e.getMessage());
        }
    }
}
