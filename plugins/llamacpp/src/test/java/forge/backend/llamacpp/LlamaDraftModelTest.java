package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.Backend;
import forge.api.backend.FlashAttention;
import forge.api.backend.KvCacheType;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
import forge.api.sampler.BuiltinStage;
import forge.api.sampler.PluginStage;
import forge.api.sampler.SamplerProvider;
import forge.api.sampler.SamplerStage;
import forge.api.sampler.SamplingParams;
import forge.api.sampler.StageArguments;
import forge.api.sampler.StageInfo;
import forge.api.sampler.TokenCandidates;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import forge.runtime.engine.DraftSetup;
import forge.runtime.engine.Engine;
import forge.runtime.engine.EngineConfig;
import forge.runtime.engine.EngineException;
import forge.runtime.engine.EngineProfile;
import forge.runtime.engine.EngineSnapshot;
import forge.runtime.engine.Generation;
import forge.runtime.engine.GenerationEvent;
import forge.runtime.engine.GenerationRequest;
import forge.runtime.engine.PromptCache;
import forge.runtime.engine.Speculation;
import forge.runtime.engine.SyntheticAcceptance;
import forge.runtime.engine.TokenLogprob;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Draft-model speculative decoding on real llama.cpp: a second context of the draft model, one
 * sequence per slot, kept in step with the slots (rejected draft cells removed), its drafts verified
 * in one batch on the target. The target is {@link LlamaSpeculationTest}'s synthetic model; the
 * drafts come from the same file (every greedy draft accepted), from the same shape with other
 * random weights (drafts mostly rejected), or from a model whose vocabulary differs (refused).
 */
class LlamaDraftModelTest {

    @TempDir
    static Path work;

    static Backend backend;
    static Path target;
    static Path other;
    static Path foreign;

    @AutoClose
    static LoadedModel model;

    @BeforeAll
    static void load() {
        target = LlamaHome.tinyModel("qwen");
        other = work.resolve("other.gguf");
        foreign = LlamaHome.tinyModel("llama");
        SyntheticModels.write(SynthSpec.tiny("qwen").withSeed(7), other);
        backend = LlamaHome.backend();
        model = backend.load(ModelLoadParams.of(target), LoadProgress.NONE);
    }

    private static int[] prompt(String text) {
        return model.vocabulary().tokenize(text, true, true);
    }

    private static final String CODE = """
            int add(int a, int b) {
                return a + b;
            }
            int add(int a,""";

    private static EngineConfig config(int slots, Speculation speculation) {
        return config(slots, speculation, 64);
    }

    private static EngineConfig config(int slots, Speculation speculation, int queue) {
        return new EngineProfile(
                        "test", "LlamaDraftModelTest", 1024 * slots, 256, 256, FlashAttention.AUTO, KvCacheType.F16)
                .config(slots, 2, queue)
                .withSpeculation(speculation);
    }

    /** An engine drafting with {@code draft} (null: none), which it owns. */
    private static Engine engine(EngineConfig config, Path draft, SyntheticAcceptance synthetic) {
        LoadedModel d = draft == null ? null : backend.load(ModelLoadParams.of(draft), LoadProgress.NONE);
        return new Engine("tiny", model, config, PromptCache.OFF, null, new DraftSetup(d, synthetic));
    }

    private static SpeculativeRun run(Engine engine, List<GenerationRequest> requests) throws Exception {
        return SpeculativeRun.of(engine, requests);
    }

    private static SpeculativeRun run(EngineConfig config, Path draft, List<GenerationRequest> requests)
            throws Exception {
        try (Engine engine = engine(config, draft, SyntheticAcceptance.OFF)) {
            return run(engine, requests);
        }
    }

    /**
     * A stateful plugin stage: bans the token it was last told the chain accepted, so that its output
     * depends on seeing exactly the emitted tokens, in order (a rejected draft token passed to it would
     * change what follows).
     */
    private static PluginStage noRepeat() {
        SamplerProvider provider = new SamplerProvider() {
            public List<StageInfo> stages() {
                return List.of(new StageInfo("no_repeat", "test", List.of()));
            }

            public SamplerStage create(String stage, StageArguments arguments) {
                return new SamplerStage() {
                    private int last = -1;

                    public void apply(TokenCandidates c) {
                        for (int i = 0; i < c.size(); i++) {
                            if (c.token(i) == last) {
                                c.ban(i);
                            }
                        }
                    }

                    public void accept(int token) {
                        last = token;
                    }
                };
            }
        };
        return new PluginStage("no_repeat", provider, new StageArguments(Map.of()));
    }

    /** Requests that run together: greedy, seeded, a stop string, a grammar, log-probabilities and a plugin stage. */
    private static List<GenerationRequest> requests() throws Exception {
        List<GenerationRequest> requests = new ArrayList<>(SpeculativeRun.mixed(
                LlamaDraftModelTest::prompt,
                CODE,
                CODE + " b",
                60,
                40,
                plain -> run(config(1, Speculation.OFF), null, plain)));
        requests.add(SpeculativeRun.greedy("logprobs", prompt(CODE + " c"), 40).withLogprobs(2));
        requests.add(SpeculativeRun.request(
                "plugin",
                prompt(CODE),
                SamplingParams.GREEDY.toBuilder()
                        .samplers(List.of(BuiltinStage.PENALTIES, noRepeat()))
                        .build(),
                40,
                List.of()));
        return List.copyOf(requests);
    }

    /**
     * Runs {@code requests} on four slots without drafts, then with {@code draft} drafting as
     * {@code speculation} says: the outputs are the same, the stopping request stopped at its
     * string, and the plain run drafted nothing. Returns the drafted run.
     */
    private static SpeculativeRun draftedAsPlain(Speculation speculation, Path draft, List<GenerationRequest> requests)
            throws Exception {
        SpeculativeRun plain = run(config(4, Speculation.OFF), null, requests);
        SpeculativeRun drafted = run(config(4, speculation), draft, requests);
        assertEquals(plain.outputs(), drafted.outputs());
        assertTrue(plain.outputs().get(2).contains("| STOP"), plain.outputs().get(2));
        assertEquals(0, plain.snapshot().draftTokens());
        return drafted;
    }

    @Test
    void theSameModelAsItsOwnDraftWritesTheSameTokensAndHasItsGreedyDraftsAccepted() throws Exception {
        List<GenerationRequest> requests = requests();
        SpeculativeRun drafted = draftedAsPlain(Speculation.draftModel(4, 0, 0f), target, requests);
        drafted.assertEachDraftedAndCounted(requests);
        // The draft model is the target: a greedy request's drafts are what it samples (up to the float
        // differences of computing a position alone or in a batch).
        int[] greedy = drafted.drafts().getFirst();
        assertTrue(greedy[1] >= greedy[0] * 9 / 10, "greedy drafted " + greedy[0] + ", accepted " + greedy[1]);
    }

    /**
     * With one KV pool for the slots, the draft model's context is one pool too, and the output is
     * what the pool writes without drafts.
     */
    @Test
    void inOneKvPoolTheDraftModelDraftsAndTheOutputIsUnchanged() throws Exception {
        List<GenerationRequest> requests = requests();
        SpeculativeRun plain = run(config(4, Speculation.OFF).withKvUnified(true), null, requests);
        SpeculativeRun drafted = run(config(4, Speculation.draftModel(4, 0, 0f)).withKvUnified(true), target, requests);
        // In one pool a sequence's attention spans the cells the others leave in the pool's view, so
        // its sums run in another order with drafts in the batch: the greedy tokens are the same,
        // log-probabilities equal to float noise, and a seeded draw (index 1) only in distribution.
        for (int i : new int[] {0, 2, 3, 4, 5}) {
            String p = plain.outputs().get(i);
            String d = drafted.outputs().get(i);
            assertEquals(
                    p.replaceAll("\\[-?[0-9.]+\\]", "[]"),
                    d.replaceAll("\\[-?[0-9.]+\\]", "[]"),
                    requests.get(i).id());
            double[] pl = logprobs(p);
            double[] dl = logprobs(d);
            assertEquals(pl.length, dl.length);
            for (int j = 0; j < pl.length; j++) {
                assertEquals(
                        pl[j],
                        dl[j],
                        0.01,
                        "log-probability " + j + " of " + requests.get(i).id());
            }
        }
        assertTrue(logprobs(plain.outputs().get(4)).length > 0, "log-probabilities compared");
        assertTrue(drafted.snapshot().draftAccepted() > 0, "the draft model's drafts were accepted");
    }

    /** The log-probabilities an output's text carries, as {@code [-5.801]} after each token, in order. */
    private static double[] logprobs(String output) {
        return Pattern.compile("\\[(-?[0-9.]+)\\]")
                .matcher(output)
                .results()
                .mapToDouble(m -> Double.parseDouble(m.group(1)))
                .toArray();
    }

    @Test
    void aDraftModelWithOtherWeightsHasItsDraftsRejectedAndTheOutputIsUnchanged() throws Exception {
        EngineSnapshot s = draftedAsPlain(Speculation.draftModel(6, 0, 0f), other, requests())
                .snapshot();
        assertTrue(
                s.draftTokens() > 2L * s.draftAccepted(),
                "drafted " + s.draftTokens() + ", accepted " + s.draftAccepted() + ": the draft rarely agrees");
    }

    @Test
    void aRequestsOwnSizesApplyToTheDraftModelAndPMinEndsDraftsOfUnlikelyTokens() throws Exception {
        GenerationRequest two = SpeculativeRun.greedy("two", prompt(CODE), 30)
                .withSpeculation(new Speculation(Speculation.DEFAULT_NGRAM, 2, 0));
        try (Engine engine = engine(config(1, Speculation.draftModel(8, 0, 0f)), target, SyntheticAcceptance.OFF)) {
            SpeculativeRun run = run(engine, List.of(two));
            int[] d = run.drafts().getFirst();
            long steps = run.snapshot().draftSteps();
            assertTrue(d[0] > 0 && d[0] <= 2 * steps, "drafted " + d[0] + " in " + steps + " steps, at most 2 each");
        }
        // No token is certain among ten of a random model's: p_min 1 drafts nothing.
        SpeculativeRun certain = run(
                config(1, Speculation.draftModel(8, 0, 1f)),
                target,
                List.of(requests().getFirst()));
        assertEquals(0, certain.snapshot().draftTokens());
        SpeculativeRun off = run(
                config(1, Speculation.draftModel(8, 0, 0f)),
                target,
                List.of(SpeculativeRun.greedy("off", prompt(CODE), 30).withSpeculation(Speculation.OFF)));
        assertEquals(0, off.snapshot().draftTokens(), "speculative.n_max 0 turns drafting off");
    }

    @Test
    void aDraftModelWhoseVocabularyDiffersIsRefusedWithTheReason() {
        EngineException e = assertThrows(
                EngineException.class,
                () -> engine(config(1, Speculation.draftModel(3, 0, 0f)), foreign, SyntheticAcceptance.OFF)
                        .close());
        assertTrue(e.getMessage().contains("cannot draft for tiny"), e.getMessage());
        EngineException none = assertThrows(
                EngineException.class,
                () -> engine(config(1, Speculation.draftModel(3, 0, 0f)), null, SyntheticAcceptance.OFF)
                        .close());
        assertTrue(none.getMessage().contains("--model-draft"), none.getMessage());
    }

    @Test
    void syntheticAcceptanceAcceptsDraftsAtTheSetRateWhateverTheTargetSamples() throws Exception {
        GenerationRequest r = SpeculativeRun.request(
                "synthetic", prompt(CODE), SamplingParams.builder().seed(5).build(), 60, List.of());
        // The other weights' drafts are rejected by real verification; here every one stands.
        try (Engine all = engine(
                config(1, Speculation.draftModel(4, 0, 0f)),
                other,
                SyntheticAcceptance.rates(new double[] {1, 1, 1, 1}, 4))) {
            int[] d = run(all, List.of(r)).drafts().getFirst();
            assertTrue(d[0] > 0 && d[1] == d[0], "drafted " + d[0] + ", accepted " + d[1]);
        }
        try (Engine none = engine(
                config(1, Speculation.draftModel(4, 0, 0f)), target, SyntheticAcceptance.rates(new double[4], 4))) {
            int[] d = run(none, List.of(r)).drafts().getFirst();
            assertTrue(d[0] > 0 && d[1] == 0, "drafted " + d[0] + ", accepted " + d[1]);
        }
    }

    /**
     * Seeded sampling is the same in distribution with and without draft-model speculation, as
     * llama.cpp's server tests compare: many seeds, disjoint between the runs, and the distribution of
     * each pair of consecutive tokens of the first few compared by total variation distance. The bound
     * is checked to have power: a verify that lets every draft token stand (synthetic acceptance at
     * rate 1, the broken verify a bug would make) exceeds it.
     */
    @Test
    void seededSamplingIsTheSameInDistributionWithAndWithoutSpeculation() throws Exception {
        int seeds = 240;
        SamplingParams base = SamplingParams.builder().temperature(1.5f).topK(3).build();
        int[] p = prompt("The quick brown fox");
        EngineConfig plainConfig = config(4, Speculation.OFF, seeds);
        EngineConfig spec = config(4, Speculation.draftModel(3, 0, 0f), seeds);
        List<int[]> plain;
        List<int[]> drafted;
        List<int[]> broken;
        try (Engine e = engine(plainConfig, null, SyntheticAcceptance.OFF)) {
            plain = sample(e, p, base, 0, seeds);
        }
        try (Engine e = engine(spec, target, SyntheticAcceptance.OFF)) {
            drafted = sample(e, p, base, 100_000, seeds);
            assertTrue(e.snapshot().draftAccepted() > 0, "drafts were accepted: the comparison covers them");
        }
        try (Engine e = engine(spec, target, SyntheticAcceptance.rates(new double[] {1, 1, 1}, 3))) {
            broken = sample(e, p, base, 100_000, seeds);
        }
        // Two independent samples of 240 from the same distribution differ by about 0.1 to 0.15 here
        // (sampling noise); a verify that lets every draft stand differs by over 0.6.
        double bound = 0.3;
        for (int position = 1; position < 3; position++) {
            double same = distance(plain, drafted, position);
            double wrong = distance(plain, broken, position);
            System.out.printf(
                    "tokens %d-%d: TV %.3f with speculation, %.3f with a broken verify%n",
                    position - 1, position, same, wrong);
            assertTrue(same <= bound, "position " + position + ": total variation " + same + " > " + bound);
            if (position == 1) {
                assertTrue(wrong > bound, "a broken verify must fail the bound: " + wrong);
            }
        }
    }

    /** The first three tokens written from {@code prompt} with seeds {@code from..from+n-1}. */
    private static List<int[]> sample(Engine engine, int[] prompt, SamplingParams base, int from, int n)
            throws Exception {
        List<Generation> gs = new ArrayList<>();
        for (int s = from; s < from + n; s++) {
            gs.add(engine.submit(SpeculativeRun.request(
                            "s" + s, prompt, base.toBuilder().seed(s).build(), 3, List.of())
                    .withLogprobs(0)));
        }
        List<int[]> out = new ArrayList<>();
        for (Generation g : gs) {
            List<Integer> tokens = new ArrayList<>();
            GenerationEvent e;
            while ((e = g.next(60, TimeUnit.SECONDS)) instanceof GenerationEvent.Text t) {
                for (TokenLogprob lp : t.logprobs()) {
                    tokens.add(Arrays.hashCode(lp.bytes()));
                }
            }
            assertInstanceOf(GenerationEvent.Done.class, e, String.valueOf(e));
            out.add(tokens.stream().mapToInt(Integer::intValue).toArray());
        }
        return out;
    }

    /** Total variation distance between the two samples' distributions of the token pair ending at {@code position}. */
    private static double distance(List<int[]> a, List<int[]> b, int position) {
        Map<String, double[]> counts = new HashMap<>();
        for (int which = 0; which < 2; which++) {
            List<int[]> runs = which == 0 ? a : b;
            for (int[] r : runs) {
                String key = r[position - 1] + "," + r[position];
                counts.computeIfAbsent(key, k -> new double[2])[which] += 1.0 / runs.size();
            }
        }
        double sum = 0;
        for (double[] c : counts.values()) {
            sum += Math.abs(c[0] - c[1]);
        }
        return sum / 2;
    }
}
