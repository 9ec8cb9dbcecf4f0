package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.FlashAttention;
import forge.api.backend.KvCacheType;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
import forge.api.sampler.SamplingParams;
import forge.runtime.engine.Engine;
import forge.runtime.engine.EngineConfig;
import forge.runtime.engine.EngineException;
import forge.runtime.engine.EngineProfile;
import forge.runtime.engine.EngineSnapshot;
import forge.runtime.engine.FinishReason;
import forge.runtime.engine.Generation;
import forge.runtime.engine.GenerationEvent;
import forge.runtime.engine.GenerationRequest;
import forge.runtime.engine.PromptCache;
import forge.runtime.engine.SlotState;
import forge.runtime.engine.TokenLogprob;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The runtime's engine (continuous batching, stops, cancellation, context contract) on real llama.cpp. */
class LlamaEngineTest {

    static Path file;

    @AutoClose
    static LoadedModel model;

    @BeforeAll
    static void load() {
        file = LlamaHome.tinyModel("qwen");
        model = LlamaHome.backend().load(ModelLoadParams.of(file), LoadProgress.NONE);
    }

    private static EngineConfig config(int slots, int ctx, int queue) {
        return new EngineProfile("test", "LlamaEngineTest", ctx, 64, 64, FlashAttention.AUTO, KvCacheType.F16)
                .config(slots, 2, queue);
    }

    private static int[] prompt(String text) {
        return model.vocabulary().tokenize(text, true, true);
    }

    private static GenerationRequest request(String id, String text, int maxTokens, List<String> stops) {
        return new GenerationRequest(id, prompt(text), SamplingParams.GREEDY, maxTokens, stops, Set.of(), true);
    }

    /** Drains a generation: its text and its final event. */
    record Outcome(String text, GenerationEvent last) {
        FinishReason reason() {
            return assertInstanceOf(GenerationEvent.Done.class, last).reason();
        }
    }

    static Outcome drain(Generation g) throws InterruptedException {
        StringBuilder text = new StringBuilder();
        while (true) {
            GenerationEvent e = g.next(60, TimeUnit.SECONDS);
            if (e == null) {
                throw new AssertionError("no event within 60 s");
            }
            if (e instanceof GenerationEvent.Text t) {
                text.append(t.text());
            } else {
                return new Outcome(text.toString(), e);
            }
        }
    }

    static GenerationEvent.Done done(Outcome o) {
        return assertInstanceOf(GenerationEvent.Done.class, o.last());
    }

    static int commonPrefix(int[] a, int[] b) {
        int i = 0;
        while (i < Math.min(a.length, b.length) && a[i] == b[i]) {
            i++;
        }
        return i;
    }

    static String systemPrompt(int words) {
        StringBuilder b = new StringBuilder("You are a careful assistant.");
        for (int i = 0; i < words; i++) {
            b.append(" rule ").append(i);
        }
        return b.toString();
    }

    @Test
    void aRepeatedPromptReusesTheSlotsCacheAndPrefillsOnlyTheLastToken() throws Exception {
        try (Engine engine = new Engine("tiny", model, config(1, 1024, 8))) {
            int[] p = prompt("Once upon a time there was a cache");
            Outcome first = drain(
                    engine.submit(new GenerationRequest("a", p, SamplingParams.GREEDY, 8, List.of(), Set.of(), true)));
            assertEquals(0, done(first).timings().cachedTokens());
            EngineSnapshot before = engine.snapshot();
            assertEquals(p.length, before.prefilledTokens());
            // The slot keeps its cells after the request: prompt plus all generated tokens but the last.
            assertEquals(p.length + 7, before.slots().getFirst().cachedTokens());
            assertEquals(SlotState.IDLE, before.slots().getFirst().state());

            Outcome second = drain(
                    engine.submit(new GenerationRequest("b", p, SamplingParams.GREEDY, 8, List.of(), Set.of(), true)));
            assertEquals(p.length - 1, done(second).timings().cachedTokens());
            EngineSnapshot after = engine.snapshot();
            assertEquals(p.length + 1, after.prefilledTokens(), "only the last prompt token is computed again");
            assertEquals(p.length - 1, after.reusedTokens());
            assertEquals(0, after.prefixCopies());
            assertEquals(first.text(), second.text(), "reused cells give the same greedy answer");
        }
    }

    /**
     * Once its last request is done the engine lets llama.cpp's CPU workers sleep: they would
     * otherwise poll for the next graph, a core each, for hundreds of milliseconds after every request. The
     * workers are the threads the engine thread started, which Linux names after it.
     */
    @Test
    void anIdleEngineLeavesTheCpuAlone() throws Exception {
        try (Engine engine = new Engine(
                "idle-check",
                model,
                new EngineProfile("test", "LlamaEngineTest", 512, 64, 64, FlashAttention.AUTO, KvCacheType.F16)
                        .config(1, 3, 4))) {
            String comm = "forge-engine-idle-check".substring(0, 15); // Linux keeps 15 bytes of a thread's name
            drain(engine.submit(new GenerationRequest(
                    "a", prompt("Hello there"), SamplingParams.GREEDY, 8, List.of(), Set.of(), true)));
            assertIdle(comm);
        }
    }

    /** The same for embeddings: after a request, the embedding context's workers sleep. */
    @Test
    void anIdleEmbedderLeavesTheCpuAlone() throws Exception {
        try (forge.runtime.engine.Embedder embedder = new forge.runtime.engine.Embedder("idle-emb", model, 64, 3)) {
            String comm = "forge-embed-idle-emb".substring(0, 15);
            assertEquals(
                    2,
                    embedder.embed(List.of(prompt("Hello there"), prompt("General Kenobi")))
                            .size());
            assertIdle(comm);
        }
    }

    /** Halted (its model's mapped file changed), an embedder decodes nothing more: each input is refused with the reason. */
    @Test
    void aHaltedEmbedderRefusesEveryInputWithTheReason() throws Exception {
        try (forge.runtime.engine.Embedder embedder = new forge.runtime.engine.Embedder("halt-emb", model, 64, 1)) {
            assertEquals(1, embedder.embed(List.of(prompt("Hello there"))).size());
            embedder.halt("the model file changed");
            EngineException e =
                    assertThrows(EngineException.class, () -> embedder.embed(List.of(prompt("Hello again"))));
            assertEquals(EngineException.Code.UNAVAILABLE, e.code());
            assertEquals("the model file changed", e.getMessage());
        }
    }

    /** The threads named {@code comm} (a thread and the workers it started) use no CPU for 300 ms. */
    private static void assertIdle(String comm) throws InterruptedException {
        long before = LlamaContextTest.cpuTicksOfThreadsNamed(comm);
        Thread.sleep(300);
        long used = LlamaContextTest.cpuTicksOfThreadsNamed(comm) - before;
        assertTrue(used <= 3, "CPU ticks (10 ms) of " + comm + "'s threads in 300 ms: " + used);
    }

    @Test
    void aPrefixCachedInAnotherBusySlotIsCopiedNotRecomputed() throws Exception {
        try (Engine engine = new Engine("tiny", model, config(2, 2048, 8))) {
            String system = systemPrompt(40);
            int[] busy = prompt(system + " Question one?");
            int[] other = prompt(system + " Another question, please?");
            int shared = commonPrefix(busy, other);
            assertTrue(shared > 100, "shared prefix " + shared);
            Generation running = engine.submit(
                    new GenerationRequest("busy", busy, SamplingParams.GREEDY, 400, List.of(), Set.of(), true));
            // Wait until the busy slot decodes: its prompt is in the cache.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (engine.snapshot().slots().stream().noneMatch(s -> s.state() == SlotState.DECODE)) {
                assertTrue(System.nanoTime() < deadline, "the first request never started decoding");
                Thread.sleep(5);
            }
            Outcome copied = drain(engine.submit(
                    new GenerationRequest("copy", other, SamplingParams.GREEDY, 6, List.of(), Set.of(), true)));
            running.cancel();
            drain(running);
            assertEquals(shared, done(copied).timings().cachedTokens());
            EngineSnapshot s = engine.snapshot();
            assertEquals(1, s.prefixCopies());
            assertEquals(busy.length + other.length - shared, s.prefilledTokens());
            // Every slot is free again and both keep their cells, each in its own KV stream (as
            // llama-server's slots): the copied prefix is held twice, and attention in one slot
            // never spans the other slot's cells.
            assertEquals(0, s.busySlots());
            int cachedSum = s.slots().get(0).cachedTokens() + s.slots().get(1).cachedTokens();
            assertEquals(cachedSum, s.kvCellsUsed());

            // The copied cells are as good as computed ones: a fresh engine gives the same answer.
            try (Engine fresh = new Engine("fresh", model, config(1, 1024, 8))) {
                Outcome solo = drain(fresh.submit(
                        new GenerationRequest("solo", other, SamplingParams.GREEDY, 6, List.of(), Set.of(), true)));
                assertEquals(solo.text(), copied.text());
                assertEquals(0, done(solo).timings().cachedTokens());
            }
        }
    }

    /**
     * More sessions than slots, each with its own system prompt, taking turns: the first session's
     * slot state is saved to the host prompt cache when another session replaces it, and restored
     * (with one slot into the sequence it came from, with two into the other one, whose KV stream
     * is another) when it returns: only the new question is prefilled, and the greedy answer is
     * the one computing it all gives.
     */
    @Test
    void aReturningSessionRestoresItsPrefixFromTheHostCacheAndGivesTheSameAnswer() throws Exception {
        for (int slots = 1; slots <= 2; slots++) {
            EngineConfig config = config(slots, 1024 * slots, 8);
            PromptCache cache = new PromptCache(64L << 20);
            List<String> systems = new ArrayList<>();
            for (int i = 0; i <= slots; i++) {
                systems.add("Session " + i + ". " + systemPrompt(30 + i));
            }
            int[] returning = prompt(systems.getFirst() + " And a second question?");
            try (Engine engine = new Engine("tiny", model, config, cache, PromptCache.Key.of(file, config))) {
                int[] firstTurn = prompt(systems.getFirst() + " A first question?");
                for (String system : systems) {
                    drain(engine.submit(new GenerationRequest(
                            "turn",
                            prompt(system + " A first question?"),
                            SamplingParams.GREEDY,
                            4,
                            List.of(),
                            Set.of(),
                            true)));
                }
                assertTrue(
                        engine.snapshot().cacheSaves() >= 1,
                        "session 0 was saved when session " + slots + " replaced it");
                long prefilledBefore = engine.snapshot().prefilledTokens();
                Outcome restored = drain(engine.submit(
                        new GenerationRequest("back", returning, SamplingParams.GREEDY, 8, List.of(), Set.of(), true)));
                int cached = done(restored).timings().cachedTokens();
                int shared = commonPrefix(firstTurn, returning);
                assertTrue(
                        cached >= shared && shared > 100, slots + " slot(s): cached " + cached + ", shared " + shared);
                EngineSnapshot s = engine.snapshot();
                assertEquals(1, s.cacheRestores());
                assertEquals(cached, s.restoredTokens());
                assertEquals(
                        returning.length - cached,
                        s.prefilledTokens() - prefilledBefore,
                        "only the suffix is prefilled");

                try (Engine fresh = new Engine("fresh", model, config(1, 1024, 8))) {
                    Outcome computed = drain(fresh.submit(new GenerationRequest(
                            "solo", returning, SamplingParams.GREEDY, 8, List.of(), Set.of(), true)));
                    assertEquals(0, done(computed).timings().cachedTokens());
                    assertEquals(
                            computed.text(),
                            restored.text(),
                            slots + " slot(s): a restored prefix answers as a computed one");
                }
            }
        }
    }

    @Test
    void requestsArrivingTogetherWithOneSystemPromptComputeItOnce() throws Exception {
        try (Engine engine = new Engine("tiny", model, config(4, 4096, 8))) {
            String system = systemPrompt(60);
            List<int[]> prompts = new ArrayList<>();
            List<Generation> all = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                int[] p = prompt(system + " User " + i + " asks something " + "else ".repeat(i));
                prompts.add(p);
                all.add(engine.submit(
                        new GenerationRequest("c" + i, p, SamplingParams.GREEDY, 4, List.of(), Set.of(), true)));
            }
            int expectedPrefill = prompts.getFirst().length;
            int shared = Integer.MAX_VALUE;
            for (int i = 1; i < 4; i++) {
                int prefix = commonPrefix(prompts.getFirst(), prompts.get(i));
                shared = Math.min(shared, prefix);
                expectedPrefill += prompts.get(i).length - prefix;
            }
            assertTrue(shared > 150, "shared prefix " + shared);
            int cachedTotal = 0;
            for (int i = 0; i < 4; i++) {
                Outcome o = drain(all.get(i));
                assertEquals(FinishReason.LENGTH, o.reason());
                cachedTotal += done(o).timings().cachedTokens();
            }
            EngineSnapshot s = engine.snapshot();
            assertEquals(3, s.prefixCopies());
            assertEquals(expectedPrefill, s.prefilledTokens(), "the system prompt is computed once, not four times");
            assertEquals(s.reusedTokens(), cachedTotal);
            assertTrue(cachedTotal >= 3 * shared, "cached " + cachedTotal);
        }
    }

    /**
     * A scored prompt (completions' echo with logprobs) gets one entry per token after the first,
     * before any text, each the log-probability of that prompt token given the ones before it: the
     * same distribution a generation from that prefix samples from, so its alternatives match the
     * alternatives a generation reports there. It reuses no cached prefix: every position needs logits.
     */
    @Test
    void aScoredPromptGetsTheLogprobOfEveryTokenGivenTheOnesBefore() throws Exception {
        try (Engine engine = new Engine("tiny", model, config(2, 2048, 8))) {
            int[] p = prompt("Once upon a time there was a tiny model that wrote stories");
            drain(engine.submit(new GenerationRequest("warm", p, SamplingParams.GREEDY, 2, List.of(), Set.of(), true)));

            Generation scored =
                    engine.submit(new GenerationRequest("score", p, SamplingParams.GREEDY, 2, List.of(), Set.of(), true)
                            .withLogprobs(3)
                            .withScorePrompt(true));
            GenerationEvent first = scored.next(60, TimeUnit.SECONDS);
            GenerationEvent.PromptLogprobs entries =
                    assertInstanceOf(GenerationEvent.PromptLogprobs.class, first, "before any text");
            Outcome rest = drain(scored);
            assertEquals(0, done(rest).timings().cachedTokens(), "no cached prefix is reused for scoring");

            assertEquals(p.length - 1, entries.tokens().size());
            for (int k = 0; k < entries.tokens().size(); k++) {
                TokenLogprob e = entries.tokens().get(k);
                assertArrayEquals(
                        model.vocabulary().piece(p[k + 1], true),
                        e.bytes(),
                        "entry " + k + " is prompt token " + (k + 1));
                assertTrue(e.logprob() <= 0 && e.logprob() <= e.top().getFirst().logprob() + 1e-4f, "entry " + k);
                assertEquals(3, e.top().size());
            }
            for (int k : new int[] {2, p.length / 2, p.length - 2}) {
                int[] prefix = java.util.Arrays.copyOf(p, k + 1);
                Generation g = engine.submit(
                        new GenerationRequest("gen" + k, prefix, SamplingParams.GREEDY, 1, List.of(), Set.of(), true)
                                .withLogprobs(3));
                List<TokenLogprob> sampled = new ArrayList<>();
                for (GenerationEvent e = g.next(60, TimeUnit.SECONDS);
                        !(e instanceof GenerationEvent.Done);
                        e = g.next(60, TimeUnit.SECONDS)) {
                    if (e instanceof GenerationEvent.Text t) {
                        sampled.addAll(t.logprobs());
                    }
                }
                List<TokenLogprob> expected = sampled.getFirst().top();
                List<TokenLogprob> actual = entries.tokens().get(k).top();
                for (int j = 0; j < 3; j++) {
                    assertArrayEquals(
                            expected.get(j).bytes(),
                            actual.get(j).bytes(),
                            "alternative " + j + " after " + (k + 1) + " tokens");
                    assertEquals(
                            expected.get(j).logprob(),
                            actual.get(j).logprob(),
                            2e-3f,
                            "alternative " + j + " after " + (k + 1) + " tokens");
                }
            }
        }
    }

    @Test
    void logprobsComeWithTheTextOnlyWhenAskedAndMatchTheGreedyChoice() throws Exception {
        try (Engine engine = new Engine("tiny", model, config(2, 512, 4))) {
            int[] p = prompt("Once upon a time");
            Generation plain = engine.submit(
                    new GenerationRequest("plain", p, SamplingParams.GREEDY, 8, List.of(), Set.of(), true));
            Generation asked =
                    engine.submit(new GenerationRequest("asked", p, SamplingParams.GREEDY, 8, List.of(), Set.of(), true)
                            .withLogprobs(5));
            List<forge.runtime.engine.TokenLogprob> got = new ArrayList<>();
            StringBuilder bytes = new StringBuilder();
            StringBuilder text = new StringBuilder();
            GenerationEvent e;
            while ((e = asked.next(60, TimeUnit.SECONDS)) instanceof GenerationEvent.Text t) {
                got.addAll(t.logprobs());
                text.append(t.text());
            }
            assertEquals(
                    FinishReason.LENGTH,
                    assertInstanceOf(GenerationEvent.Done.class, e).reason());
            assertEquals(8, got.size(), "one entry per generated token");
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            for (var lp : got) {
                assertEquals(5, lp.top().size());
                assertTrue(lp.logprob() <= 0);
                // Greedy: the sampled token is the most likely one, so it heads the alternatives.
                assertEquals(lp.top().get(0).logprob(), lp.logprob(), 1e-6);
                assertTrue(java.util.Arrays.equals(lp.top().get(0).bytes(), lp.bytes()));
                for (int i = 1; i < 5; i++) {
                    assertTrue(lp.top().get(i - 1).logprob() >= lp.top().get(i).logprob());
                }
                all.writeBytes(lp.bytes());
            }
            assertEquals(
                    text.toString(),
                    all.toString(java.nio.charset.StandardCharsets.UTF_8),
                    "the tokens spell the text");
            while ((e = plain.next(60, TimeUnit.SECONDS)) instanceof GenerationEvent.Text t) {
                assertTrue(t.logprobs().isEmpty(), "not asked, not computed");
            }
            assertThrows(
                    IllegalArgumentException.class,
                    () -> new GenerationRequest("bad", p, SamplingParams.GREEDY, 8, List.of(), Set.of(), true)
                            .withLogprobs(21));
        }
    }

    @Test
    void sequencesBatchedTogetherMatchEachOtherAndFinishByLength() throws Exception {
        try (Engine engine = new Engine("tiny", model, config(4, 1024, 8))) {
            Outcome solo = drain(engine.submit(request("solo", "Once upon a time", 16, List.of())));
            assertEquals(FinishReason.LENGTH, solo.reason());
            assertEquals(16, ((GenerationEvent.Done) solo.last()).timings().completionTokens());

            List<Generation> together = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                together.add(engine.submit(request("same-" + i, "Once upon a time", 16, List.of())));
            }
            together.add(engine.submit(
                    request("other", "A completely different prompt, longer than the others", 16, List.of())));
            List<Outcome> outcomes = new ArrayList<>();
            for (Generation g : together) {
                outcomes.add(drain(g));
            }
            for (Outcome o : outcomes) {
                assertEquals(FinishReason.LENGTH, o.reason());
            }
            assertEquals(outcomes.get(0).text(), outcomes.get(1).text());
            assertEquals(outcomes.get(0).text(), outcomes.get(2).text());
            // A slot reused after another request starts clean: same prompt, same greedy answer.
            assertEquals(
                    solo.text(),
                    drain(engine.submit(request("again", "Once upon a time", 16, List.of())))
                            .text());
        }
    }

    @Test
    void aStopStringEndsGenerationAndIsNeverEmitted() throws Exception {
        try (Engine engine = new Engine("tiny", model, config(1, 1024, 8))) {
            String free = drain(engine.submit(request("free", "The stop test", 24, List.of())))
                    .text();
            assertTrue(free.length() >= 6, "need some text to cut: '" + free + "'");
            String stop = free.substring(free.length() / 2, free.length() / 2 + 3);
            Outcome stopped = drain(engine.submit(request("stopped", "The stop test", 24, List.of(stop))));
            assertEquals(FinishReason.STOP, stopped.reason());
            assertEquals(free.substring(0, free.indexOf(stop)), stopped.text());
        }
    }

    @Test
    void fillingTheSlotsContextFinishesWithLength() throws Exception {
        try (Engine engine = new Engine("tiny", model, config(1, 48, 8))) {
            int[] p = prompt("short prompt");
            Outcome o = drain(engine.submit(
                    new GenerationRequest("fill", p, SamplingParams.GREEDY, -1, List.of(), Set.of(), true)));
            assertEquals(FinishReason.LENGTH, o.reason());
            assertEquals(
                    48 - p.length, ((GenerationEvent.Done) o.last()).timings().completionTokens());
        }
    }

    @Test
    void promptPlusMaxTokensBeyondTheSlotIsRefusedUpFront() {
        try (Engine engine = new Engine("tiny", model, config(2, 128, 8))) {
            EngineException e =
                    assertThrows(EngineException.class, () -> engine.submit(request("big", "hello", 100, List.of())));
            assertEquals(EngineException.Code.CONTEXT_LENGTH_EXCEEDED, e.code());
        }
    }

    @Test
    void cancelledGenerationsFreeTheirSlotsAndTheOthersFinish() throws Exception {
        try (Engine engine = new Engine("tiny", model, config(4, 2048, 16))) {
            List<Generation> all = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                all.add(engine.submit(request("g" + i, "stream number " + i, 40, List.of())));
            }
            for (int i = 0; i < 8; i += 2) {
                all.get(i).cancel();
            }
            for (int i = 0; i < 8; i++) {
                Outcome o = drain(all.get(i));
                assertEquals(i % 2 == 0 ? FinishReason.CANCELLED : FinishReason.LENGTH, o.reason(), "generation " + i);
            }
            assertEquals(0, engine.queued());
            // Every slot is free again: four new requests run at once and finish.
            List<Generation> next = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                next.add(engine.submit(request("n" + i, "after", 4, List.of())));
            }
            for (Generation g : next) {
                assertEquals(FinishReason.LENGTH, drain(g).reason());
            }
        }
    }

    @Test
    void aFullQueueRefusesNewRequests() throws Exception {
        try (Engine engine = new Engine("tiny", model, config(1, 1024, 0))) {
            List<Generation> accepted = new ArrayList<>();
            EngineException refused = null;
            for (int i = 0; i < 10 && refused == null; i++) {
                try {
                    accepted.add(engine.submit(request("q" + i, "queue", 200, List.of())));
                } catch (EngineException e) {
                    refused = e;
                }
            }
            assertTrue(refused != null, "some request must be refused");
            assertEquals(EngineException.Code.QUEUE_FULL, refused.code());
            accepted.forEach(Generation::cancel);
            for (Generation g : accepted) {
                drain(g);
            }
        }
    }

    private static GenerationRequest constrained(String id, SamplingParams sampling) {
        return new GenerationRequest(id, prompt("constrained"), sampling, 8, List.of(), Set.of(), true);
    }

    /** Every token of the vocabulary banned (OpenAI's -100, which is -inf here). */
    private static Map<Integer, Float> banAll() {
        Map<Integer, Float> bias = new java.util.HashMap<>();
        for (int t = 0; t < model.vocabulary().size(); t++) {
            bias.put(t, Float.NEGATIVE_INFINITY);
        }
        return bias;
    }

    /**
     * Requests that make llama.cpp's grammar throw a C++ exception (which aborted the JVM: a grammar no
     * token can satisfy, one at a dead end after its first token, every admitted token banned) end
     * with a {@link forge.api.SamplingException} of their own, while a request beside them finishes
     * and the engine serves the next one.
     */
    @Test
    void aRequestWhoseConstraintsAllowNoTokenFailsAloneAndTheEngineGoesOn() throws Exception {
        try (Engine engine = new Engine("tiny", model, config(4, 2048, 16))) {
            Generation beside = engine.submit(request("beside", "a long answer", 40, List.of()));
            List<Generation> bad = List.of(
                    engine.submit(constrained(
                            "nul",
                            SamplingParams.GREEDY.toBuilder()
                                    .grammar("root ::= [\\x00]")
                                    .build())),
                    engine.submit(constrained(
                            "dead-end",
                            SamplingParams.builder()
                                    .grammar("root ::= [a-z] [\\x00]")
                                    .build())),
                    engine.submit(constrained(
                            "banned",
                            SamplingParams.builder()
                                    .grammar("root ::= [a-z]+")
                                    .logitBias(banAll())
                                    .build())),
                    engine.submit(constrained(
                            "banned-free",
                            SamplingParams.GREEDY.toBuilder()
                                    .logitBias(banAll())
                                    .build())));
            for (Generation g : bad) {
                Outcome o = drain(g);
                var failed = assertInstanceOf(
                        GenerationEvent.Failed.class, o.last(), g.request().id());
                assertInstanceOf(
                        forge.api.SamplingException.class,
                        failed.error(),
                        failed.error().getMessage());
            }
            assertEquals(FinishReason.LENGTH, drain(beside).reason());
            // A grammar that admits tokens still works, and so does everything else.
            Outcome fine = drain(engine.submit(constrained(
                    "fine", SamplingParams.builder().grammar("root ::= [a-z]+").build())));
            assertTrue(fine.text().matches("[a-z]+"), fine.text());
            assertEquals(
                    FinishReason.LENGTH,
                    drain(engine.submit(request("after", "after", 4, List.of())))
                            .reason());
            for (var slot : engine.snapshot().slots()) {
                assertEquals(SlotState.IDLE, slot.state());
            }
        }
    }

    @Test
    void aLogitBiasOutsideTheVocabularyIsRefusedUpFront() {
        try (Engine engine = new Engine("tiny", model, config(1, 1024, 4))) {
            int size = model.vocabulary().size();
            EngineException e = assertThrows(
                    EngineException.class,
                    () -> engine.submit(constrained(
                            "bias",
                            SamplingParams.GREEDY.toBuilder()
                                    .logitBias(Map.of(size, -1f))
                                    .build())));
            assertEquals(EngineException.Code.INVALID_LOGIT_BIAS, e.code());
        }
    }

    /**
     * A lazy grammar (tool calls in auto mode) replays the output from its trigger on once the
     * trigger appears; a token that completes the trigger and goes on with text the grammar refuses
     * made llama.cpp throw inside that replay (and the JVM abort). Now that token is kept from the
     * grammar, which goes on waiting: the output is free text and the request finishes.
     */
    @Test
    void aTriggerWhoseReplayTheGrammarRefusesLeavesTheOutputFree() throws Exception {
        // A token whose text goes on past a prefix that is no token of its own: that prefix is the
        // trigger, matched as text (a trigger that is one token is matched as that token).
        LlamaVocabulary vocab = (LlamaVocabulary) model.vocabulary();
        int token = -1;
        String piece = "";
        String trigger = "";
        for (int t = 0; t < vocab.size() && token < 0; t++) {
            String p = new String(vocab.piece(t, false), java.nio.charset.StandardCharsets.UTF_8);
            if (p.length() >= 3 && p.chars().allMatch(c -> c >= 'a' && c <= 'z')) {
                for (int n = 2; n < p.length() && token < 0; n++) {
                    if (vocab.tokenOf(p.substring(0, n)).isEmpty()) {
                        token = t;
                        piece = p;
                        trigger = p.substring(0, n);
                    }
                }
            }
        }
        assertTrue(token >= 0, "the vocabulary has a token of three or more letters whose prefix is no token");
        // The grammar starts with the trigger and then wants a digit: the token's second letter is refused.
        SamplingParams sampling = SamplingParams.GREEDY.toBuilder()
                .logitBias(Map.of(token, 100f))
                .lazyGrammar("root ::= \"" + trigger + "\" [0-9]+", List.of(trigger))
                .build();
        try (Engine engine = new Engine("tiny", model, config(1, 1024, 4))) {
            Outcome o = drain(engine.submit(constrained("lazy", sampling)));
            assertEquals(FinishReason.LENGTH, o.reason(), o.toString());
            assertTrue(o.text().startsWith(piece), o.text());
            assertEquals(
                    FinishReason.LENGTH,
                    drain(engine.submit(request("after", "after", 4, List.of())))
                            .reason());
        }
    }
}
