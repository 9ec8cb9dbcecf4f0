package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.FlashAttention;
import forge.api.backend.KvCacheType;
import forge.api.backend.LoadedModel;
import forge.runtime.engine.Engine;
import forge.runtime.engine.EngineConfig;
import forge.runtime.engine.EngineProfile;
import forge.runtime.engine.EngineSnapshot;
import forge.runtime.engine.GenerationRequest;
import forge.runtime.engine.Speculation;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * N-gram speculative decoding on real llama.cpp, with {@link LlamaEngineTest}'s synthetic model:
 * drafts verified in one batch on the target, rejected cells removed with
 * {@code llama_memory_seq_rm}, and every request's output the same, token for token, as without
 * speculation, with several slots busy at once, stop strings, a grammar and seeded sampling.
 */
class LlamaSpeculationTest {

    @AutoClose
    static LoadedModel model;

    @BeforeAll
    static void load() {
        model = LlamaHome.loadTiny("qwen");
    }

    private static int[] prompt(String text) {
        return model.vocabulary().tokenize(text, true, true);
    }

    /** A prompt that repeats a code block, as coding agents' contexts do: the lookup proposes its rest. */
    private static final String CODE = """
            int add(int a, int b) {
                return a + b;
            }
            int add(int a, int b) {
                return a + b;
            }
            int add(int a,""";

    private static EngineConfig config(int slots, Speculation speculation) {
        return new EngineProfile(
                        "test", "LlamaSpeculationTest", 2048 * slots, 256, 256, FlashAttention.AUTO, KvCacheType.F16)
                .config(slots, 2, 16)
                .withSpeculation(speculation);
    }

    /** Submits every request at once (so that the slots are busy together) and collects each one's text, end and count. */
    private static SpeculativeRun run(EngineConfig config, List<GenerationRequest> requests) throws Exception {
        try (Engine engine = new Engine("tiny", model, config)) {
            return SpeculativeRun.of(engine, requests);
        }
    }

    /** Several requests, submitted together; one stops at a string that greedy decoding of its prompt writes. */
    private static List<GenerationRequest> requests() throws Exception {
        return SpeculativeRun.mixed(
                LlamaSpeculationTest::prompt,
                CODE,
                CODE + " int b",
                120,
                80,
                requests -> run(config(1, Speculation.OFF), requests));
    }

    @Test
    void outputIsTheSameTokenForTokenWithAndWithoutSpeculationAndDraftsAreAccepted() throws Exception {
        List<GenerationRequest> requests = requests();
        SpeculativeRun plain = run(config(4, Speculation.OFF), requests);
        SpeculativeRun speculative = run(config(4, new Speculation(1, 16, 0)), requests);
        assertEquals(plain.outputs(), speculative.outputs());
        assertTrue(plain.outputs().get(2).contains("| STOP"), plain.outputs().get(2));
        assertEquals(0, plain.snapshot().draftTokens());
        EngineSnapshot s = speculative.snapshot();
        assertTrue(
                s.draftAccepted() > 0 && s.draftTokens() > s.draftAccepted(),
                "drafted " + s.draftTokens() + ", accepted " + s.draftAccepted() + " in " + s.draftSteps() + " steps");
        // Drafts and their rollback are never counted or redone as prompt prefill. (Not equal to the plain
        // run's count: how much of a shared prefix is copied from a busy slot depends on when each request
        // was admitted, which differs between two runs.)
        int prompts = requests.stream().mapToInt(r -> r.prompt().length).sum();
        assertTrue(s.prefilledTokens() <= prompts, s.prefilledTokens() + " prefilled of " + prompts + " prompt tokens");
        assertTrue(plain.snapshot().prefilledTokens() <= prompts);
        for (int i = 0; i < requests.size(); i++) {
            int[] d = speculative.drafts().get(i);
            System.out.println(requests.get(i).id() + ": drafted " + d[0] + ", accepted " + d[1]);
        }
        speculative.assertEachDraftedAndCounted(requests);
    }

    /**
     * One KV pool for the busy slots ({@code kv_unified}) writes what a stream per slot writes, token
     * for token, for the greedy requests (plain, a stop string, a grammar); a seeded one only in
     * distribution, as attention over the pool sums in another order (its float differences move a
     * random draw on this model's flat logits). In the pool, drafts change no greedy token either.
     */
    @Test
    void inOneKvPoolTheBusySlotsWriteWhatTheyWriteWithAStreamEach() throws Exception {
        List<GenerationRequest> requests = requests();
        SpeculativeRun perSlot = run(config(4, Speculation.OFF), requests);
        SpeculativeRun pooled = run(config(4, Speculation.OFF).withKvUnified(true), requests);
        for (int i : new int[] {0, 2, 3}) {
            assertTrue(
                    requests.get(i).sampling().temperature() <= 0,
                    requests.get(i).id() + " is greedy");
            assertEquals(
                    perSlot.outputs().get(i),
                    pooled.outputs().get(i),
                    requests.get(i).id());
        }
        SpeculativeRun pooledSpeculative =
                run(config(4, new Speculation(1, 16, 0)).withKvUnified(true), requests);
        for (int i : new int[] {0, 2, 3}) {
            assertEquals(
                    pooled.outputs().get(i),
                    pooledSpeculative.outputs().get(i),
                    requests.get(i).id());
        }
        assertTrue(pooledSpeculative.snapshot().draftAccepted() > 0, "drafts were accepted in the pool");
    }

    @Test
    void aRequestMayTurnSpeculationOffOnAnEngineThatHasItOn() throws Exception {
        GenerationRequest off = SpeculativeRun.greedy("off", prompt(CODE), 60).withSpeculation(Speculation.OFF);
        SpeculativeRun run = run(config(1, new Speculation(2, 16, 0)), List.of(off));
        assertEquals(0, run.snapshot().draftTokens());
    }
}
