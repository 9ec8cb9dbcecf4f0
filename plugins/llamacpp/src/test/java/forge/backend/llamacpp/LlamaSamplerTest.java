package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.SamplerStageException;
import forge.api.SamplingException;
import forge.api.backend.ContextParams;
import forge.api.backend.FlashAttention;
import forge.api.backend.InferenceContext;
import forge.api.backend.KvCacheType;
import forge.api.backend.LoadedModel;
import forge.api.backend.TokenBatch;
import forge.api.backend.TokenSampler;
import forge.api.sampler.BuiltinStage;
import forge.api.sampler.PluginStage;
import forge.api.sampler.SamplerProvider;
import forge.api.sampler.SamplerStage;
import forge.api.sampler.SamplerStep;
import forge.api.sampler.SamplingParams;
import forge.api.sampler.StageArguments;
import forge.api.sampler.StageInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** The chain a request's order builds: the built-in stages llama.cpp offers, and plugin stages through upcalls. */
class LlamaSamplerTest {
    @AutoClose
    private static final LoadedModel model = LlamaHome.loadTiny("qwen");

    private static final int[] prompt = LlamaHome.qwenChatPrompt(model);

    private static InferenceContext context() {
        return model.newContext(
                new ContextParams(512, 128, 128, 1, 2, 2, FlashAttention.AUTO, KvCacheType.F16, true, false));
    }

    private static void prefill(InferenceContext ctx) {
        TokenBatch b = ctx.batch();
        b.clear();
        for (int i = 0; i < prompt.length; i++) {
            b.add(prompt[i], i, 0, i == prompt.length - 1);
        }
        ctx.decode();
    }

    /** Samples {@code n} tokens after the prompt; a fresh prompt each time. */
    private static int[] generate(InferenceContext ctx, SamplingParams p, int n) {
        ctx.removeTokens(0, 0, -1);
        prefill(ctx);
        int[] out = new int[n];
        try (TokenSampler s = ctx.sampler(p)) {
            int index = prompt.length - 1;
            for (int i = 0; i < n; i++) {
                out[i] = s.sample(index);
                ctx.batch().clear();
                index = ctx.batch().add(out[i], prompt.length + i, 0, true);
                ctx.decode();
            }
        }
        return out;
    }

    /** A plugin stage made by {@code factory}, as a request's {@code samplers} would hold it. */
    private static PluginStage stage(String name, Supplier<SamplerStage> factory) {
        SamplerProvider provider = new SamplerProvider() {
            public List<StageInfo> stages() {
                return List.of(new StageInfo(name, "test", List.of()));
            }

            public SamplerStage create(String stage, StageArguments arguments) {
                return factory.get();
            }
        };
        return new PluginStage(name, provider, new StageArguments(Map.of()));
    }

    private static SamplingParams with(SamplingParams base, SamplerStep... steps) {
        return base.toBuilder().samplers(List.of(steps)).build();
    }

    @Test
    void aPluginStageRunsInTheChainAndSeesWhatWasSampled() {
        try (InferenceContext ctx = context()) {
            int[] greedy = generate(ctx, SamplingParams.GREEDY, 4);
            List<Integer> accepted = new ArrayList<>();
            int[] sizes = new int[1];
            PluginStage banFirst = stage("ban_first", () -> new SamplerStage() {
                public void apply(forge.api.sampler.TokenCandidates c) {
                    sizes[0] = c.size();
                    for (int i = 0; i < c.size(); i++) {
                        if (c.token(i) == greedy[0]) {
                            c.ban(i);
                        }
                    }
                }

                public void accept(int token) {
                    accepted.add(token);
                }
            });
            int[] out = generate(ctx, with(SamplingParams.GREEDY, BuiltinStage.PENALTIES, banFirst), 4);
            assertNotEquals(greedy[0], out[0], "the stage banned the greedy token");
            assertEquals(
                    List.of(out[0], out[1], out[2], out[3]),
                    accepted,
                    "each sampled token is accepted, prompt tokens are not");
            assertEquals(model.vocabulary().size(), sizes[0], "first in the chain, it sees every token");

            // After top_k, a stage sees what top_k kept: the order is the request's.
            SamplingParams sampled = SamplingParams.builder().topK(5).seed(3).build();
            generate(
                    ctx,
                    with(
                            sampled,
                            BuiltinStage.TOP_K,
                            stage("count", () -> c -> sizes[0] = c.size()),
                            BuiltinStage.TEMPERATURE),
                    1);
            assertEquals(5, sizes[0]);
        }
    }

    @Test
    void aChainWithoutPluginStagesHasNoGuardAtAll() {
        try (InferenceContext ctx = context()) {
            int before = SamplingGuard.live();
            try (TokenSampler _ = ctx.sampler(SamplingParams.builder()
                    .dry(new SamplingParams.Dry(0.8f, 1.75f, 2, -1, List.of("\n")))
                    .samplers(List.of(BuiltinStage.values()))
                    .build())) {
                assertEquals(before, SamplingGuard.live(), "no guard: sampling makes no upcall");
            }
            try (TokenSampler _ = ctx.sampler(with(SamplingParams.GREEDY, stage("noop", () -> c -> {})))) {
                assertEquals(before + 1, SamplingGuard.live());
            }
            assertEquals(before, SamplingGuard.live());
        }
    }

    @Test
    void aStageThatThrowsFailsItsRequestByNameAndTheContextGoesOn() {
        try (InferenceContext ctx = context()) {
            int[] greedy = generate(ctx, SamplingParams.GREEDY, 2);
            var e = assertThrows(
                    SamplerStageException.class,
                    () -> generate(
                            ctx,
                            with(SamplingParams.GREEDY, stage("boom", () -> c -> {
                                throw new IllegalStateException("kaput");
                            })),
                            2));
            assertEquals("boom", e.stage());
            assertTrue(e.getMessage().contains("kaput") && e.getMessage().contains("'boom'"), e.getMessage());
            assertInstanceOf(SamplingException.class, e, "a sampling failure: its request ends, nothing else");

            e = assertThrows(
                    SamplerStageException.class,
                    () -> generate(
                            ctx,
                            with(SamplingParams.GREEDY, stage("nan", () -> c -> {
                                try {
                                    c.logit(0, Float.NaN);
                                } catch (IllegalArgumentException swallowed) {
                                    // a stage that hides the refusal fails all the same
                                }
                            })),
                            2));
            assertTrue(e.getMessage().contains("NaN"), e.getMessage());

            e = assertThrows(
                    SamplerStageException.class,
                    () -> generate(
                            ctx,
                            with(SamplingParams.GREEDY, stage("late", () -> new SamplerStage() {
                                public void apply(forge.api.sampler.TokenCandidates c) {}

                                public void accept(int token) {
                                    throw new UnsupportedOperationException("no accept");
                                }
                            })),
                            2));
            assertTrue(e.getMessage().contains("no accept"), e.getMessage());

            e = assertThrows(
                    SamplerStageException.class,
                    () -> ctx.sampler(with(SamplingParams.GREEDY, stage("unmade", () -> {
                        throw new IllegalStateException("no stage today");
                    }))));
            assertTrue(e.getMessage().contains("could not be created"), e.getMessage());

            var banAll = assertThrows(
                    SamplingException.class,
                    () -> generate(
                            ctx,
                            with(SamplingParams.GREEDY, stage("ban_all", () -> c -> {
                                for (int i = 0; i < c.size(); i++) {
                                    c.ban(i);
                                }
                            })),
                            1));
            assertFalse(banAll instanceof SamplerStageException, "banning everything is a refusal, as a grammar's");
            assertTrue(banAll.getMessage().contains("ban_all"), banAll.getMessage());

            assertEquals(
                    java.util.Arrays.toString(greedy),
                    java.util.Arrays.toString(generate(ctx, SamplingParams.GREEDY, 2)),
                    "the context samples as before");
        }
    }

    @Test
    void theBuiltInStagesLlamaCppOffersAreBound() {
        SamplingParams warm = SamplingParams.builder()
                .temperature(1.2f)
                .seed(11)
                .samplers(List.of(BuiltinStage.values()))
                .build();
        List<SamplingParams> chains = List.of(
                warm.toBuilder()
                        .dry(new SamplingParams.Dry(0.8f, 1.75f, 2, -1, List.of("\n", ":")))
                        .build(),
                warm.toBuilder().xtc(new SamplingParams.Xtc(0.5f, 0.1f)).build(),
                warm.toBuilder().typicalP(0.5f).build(),
                warm.toBuilder().topNSigma(1f).build(),
                warm.toBuilder()
                        .mirostat(new SamplingParams.Mirostat(1, 5f, 0.1f))
                        .build(),
                warm.toBuilder()
                        .mirostat(new SamplingParams.Mirostat(2, 5f, 0.1f))
                        .build());
        try (InferenceContext ctx = context()) {
            for (SamplingParams p : chains) {
                int[] a = generate(ctx, p, 6);
                for (int t : a) {
                    assertTrue(t >= 0 && t < model.vocabulary().size(), p.toString());
                }
                assertEquals(
                        java.util.Arrays.toString(a), java.util.Arrays.toString(generate(ctx, p, 6)), "seeded: " + p);
            }
            // XTC at probability 1 and threshold 0 excludes every top choice but the least likely.
            SamplingParams cold = SamplingParams.builder()
                    .temperature(0.01f)
                    .topK(0)
                    .topP(1f)
                    .minP(0f)
                    .seed(5)
                    .build();
            int top = generate(ctx, cold, 1)[0];
            assertEquals(top, generate(ctx, SamplingParams.GREEDY, 1)[0]);
            assertNotEquals(
                    top,
                    generate(
                            ctx,
                            cold.toBuilder().xtc(new SamplingParams.Xtc(1f, 0f)).build(),
                            1)[0]);
            // Leaving temperature out of the order leaves it out of the chain, as llama-server does.
            assertNotEquals(
                    -1,
                    generate(
                            ctx,
                            cold.toBuilder()
                                    .samplers(List.of(BuiltinStage.TOP_K))
                                    .build(),
                            1)[0]);
        }
    }
}
