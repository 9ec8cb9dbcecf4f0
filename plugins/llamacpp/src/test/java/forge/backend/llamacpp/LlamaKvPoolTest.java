package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.Backend;
import forge.api.backend.BackendContext;
import forge.api.backend.FlashAttention;
import forge.api.backend.KvCacheType;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
import forge.api.sampler.SamplingParams;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import forge.runtime.engine.Engine;
import forge.runtime.engine.EngineConfig;
import forge.runtime.engine.EngineException;
import forge.runtime.engine.EngineProfile;
import forge.runtime.engine.EngineSnapshot;
import forge.runtime.engine.Generation;
import forge.runtime.engine.GenerationEvent;
import forge.runtime.engine.GenerationRequest;
import forge.runtime.engine.PromptCache;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One KV pool for all slots on real llama.cpp ({@code kv_unified}, {@code n_ctx} the total): a
 * request longer than an equal share runs beside a small one, an idle slot's prefix is evicted
 * (into the host prompt cache, from which it comes back) when a running request needs the room,
 * and the answers are those of a stream per slot.
 */
class LlamaKvPoolTest {

    @TempDir
    static Path work;

    static Backend backend;
    static LoadedModel model;
    static Path file;

    @BeforeAll
    static void load() {
        file = work.resolve("tiny.gguf");
        SyntheticModels.write(SynthSpec.tiny("qwen"), file);
        backend = new LlamaCppProvider()
                .create(new BackendContext(
                        work, Map.of(LlamaCppProvider.LLAMA_HOME, System.getProperty("forge.llama.home"))));
        model = backend.load(ModelLoadParams.of(file), LoadProgress.NONE);
    }

    @AfterAll
    static void unload() {
        if (model != null) {
            model.close();
        }
        if (backend != null) {
            backend.close();
        }
    }

    private static EngineConfig config(int slots, int ctx) {
        return new EngineProfile("test", "LlamaKvPoolTest", ctx, 64, 64, FlashAttention.AUTO, KvCacheType.F16)
                .config(slots, 2, 8);
    }

    /** A prompt of at least {@code tokens} tokens that starts with {@code first} (no other prompt here does). */
    private static int[] prompt(String first, int tokens) {
        StringBuilder text = new StringBuilder(first);
        for (int i = 0; ; i++) {
            int[] ids = model.vocabulary().tokenize(text.toString(), false, true);
            if (ids.length >= tokens) {
                return ids;
            }
            text.append(" rule ").append(i);
        }
    }

    private static GenerationRequest request(String id, int[] prompt, int maxTokens) {
        return new GenerationRequest(id, prompt, SamplingParams.GREEDY, maxTokens, List.of(), Set.of(), true);
    }

    /** The text and the final event. */
    record Outcome(String text, GenerationEvent.Done done) {}

    private static Outcome drain(Generation g) throws InterruptedException {
        StringBuilder text = new StringBuilder();
        GenerationEvent e;
        while ((e = g.next(60, TimeUnit.SECONDS)) instanceof GenerationEvent.Text t) {
            text.append(t.text());
        }
        return new Outcome(text.toString(), assertInstanceOf(GenerationEvent.Done.class, e, String.valueOf(e)));
    }

    /** What a request writes alone, in a stream of its own large enough for it. */
    private static String alone(GenerationRequest r) throws Exception {
        try (Engine engine = new Engine("tiny", model, config(1, 1024))) {
            return drain(engine.submit(r)).text();
        }
    }

    @Test
    void aRequestLongerThanAnEqualShareRunsBesideASmallOne() throws Exception {
        int[] agent = prompt("Agent", 340);
        assertTrue(agent.length < 480, "more than 256 (half of 512), less than all: " + agent.length);
        GenerationRequest long_ = request("agent", agent, 24);
        GenerationRequest small = request("autocomplete", prompt("Complete", 8), 6);
        try (Engine perSlot = new Engine("tiny", model, config(2, 512))) {
            EngineException e = assertThrows(EngineException.class, () -> perSlot.submit(long_));
            assertEquals(EngineException.Code.CONTEXT_LENGTH_EXCEEDED, e.code(), "a stream per slot has 256 cells");
        }
        try (Engine pooled = new Engine("tiny", model, config(2, 512).withKvUnified(true))) {
            Generation a = pooled.submit(long_);
            Generation b = pooled.submit(small);
            Outcome agentOut = drain(a);
            Outcome smallOut = drain(b);
            assertEquals(24, agentOut.done().timings().completionTokens());
            assertEquals(6, smallOut.done().timings().completionTokens());
            assertEquals(alone(long_), agentOut.text(), "the same greedy answer as in a stream of its own");
            assertEquals(alone(small), smallOut.text());
        }
    }

    @Test
    void anIdleSlotsPrefixIsEvictedIntoTheHostCacheForARunningRequestAndComesBack() throws Exception {
        EngineConfig config = config(2, 512).withKvUnified(true);
        PromptCache cache = new PromptCache(64L << 20);
        int[] alpha = prompt("Alpha", 200);
        int[] beta = prompt("Beta", 400);
        assertTrue(alpha.length + beta.length > 512, alpha.length + " + " + beta.length);
        try (Engine engine = new Engine("tiny", model, config, cache, PromptCache.Key.of(file, config))) {
            drain(engine.submit(request("alpha", alpha, 1)));
            assertEquals(alpha.length, engine.snapshot().slots().get(0).cachedTokens(), "alpha's prefix, idle");

            Outcome b = drain(engine.submit(request("beta", beta, 8)));
            assertEquals(alone(request("beta", beta, 8)), b.text());
            EngineSnapshot s = engine.snapshot();
            assertEquals(0, s.slots().get(0).cachedTokens(), "alpha's idle cells gave way to beta's");
            assertEquals(beta.length + 7, s.slots().get(1).cachedTokens());
            assertEquals(1, s.cacheSaves(), "alpha's cells went to the host cache first");

            // Alpha again: restored from the host cache (beta's idle cells make room for it this time).
            Outcome again = drain(engine.submit(request("alpha again", alpha, 4)));
            assertEquals(alpha.length - 1, again.done().timings().cachedTokens());
            assertEquals(1, engine.snapshot().cacheRestores());
            assertEquals(alone(request("alpha again", alpha, 4)), again.text());
        }
    }
}
