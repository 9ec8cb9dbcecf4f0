package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.BackendException;
import forge.api.backend.ContextParams;
import forge.api.backend.FlashAttention;
import forge.api.backend.InferenceContext;
import forge.api.backend.KvCacheType;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
import forge.api.backend.TokenBatch;
import forge.api.backend.TokenLogprobs;
import forge.api.backend.TokenSampler;
import forge.api.sampler.SamplingParams;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading, decoding and sampling a tiny synthetic model (random weights: tests check structure, not wording). */
class LlamaContextTest {
    @AutoClose
    private static final LoadedModel model = LlamaHome.loadTiny("qwen");

    private static final int[] prompt = LlamaHome.qwenChatPrompt(model);

    @BeforeAll
    static void promptLeavesATailToCopyAfterAPrefix() {
        assertTrue(prompt.length > 5);
    }

    private static InferenceContext context(int seqMax) {
        return model.newContext(
                new ContextParams(512, 128, 128, seqMax, 2, 2, FlashAttention.AUTO, KvCacheType.F16, true, false));
    }

    /** Two sequences with a KV stream each (the engine's layout, as llama-server's slots). */
    private static InferenceContext twoStreams() {
        return model.newContext(
                new ContextParams(512, 128, 128, 2, 2, 2, FlashAttention.AUTO, KvCacheType.F16, false, false));
    }

    /**
     * With a KV stream per sequence (the engine's layout, as llama-server's slots) a prefix copy
     * copies the source stream and drops the rest: the copy continues exactly as the source does.
     * A partial copy from inside the sequence, which llama.cpp would abort on, is refused.
     */
    @Test
    void copiesAPrefixBetweenSeparateKvStreams() {
        int k = prompt.length - 3;
        try (InferenceContext ctx = twoStreams();
                TokenSampler s0 = ctx.sampler(SamplingParams.GREEDY);
                TokenSampler s1 = ctx.sampler(SamplingParams.GREEDY)) {
            prefill(ctx, 0, prompt, 0);
            int[] a = generate(ctx, s0, 0, prompt.length, prompt.length - 1, 6);
            ctx.copySequence(0, 1, 0, k);
            assertEquals(k - 1, ctx.maxPosition(1), "only the prefix is kept");
            assertEquals(prompt.length + 5, ctx.maxPosition(0), "the source is untouched");
            assertArrayEquals(a, finishPrompt(ctx, s1, 1, k));
            assertThrows(BackendException.class, () -> ctx.copySequence(0, 1, 2, k));
        }
    }

    /**
     * A sequence's state saved and restored into another sequence continues exactly as the
     * source; the native memory the states pass through is kept between calls (grown to fit), not
     * allocated, zeroed and faulted in for each.
     */
    @Test
    void savesAndRestoresASequenceThroughOneKeptBuffer() {
        int k = prompt.length - 3;
        try (InferenceContext ctx = twoStreams();
                TokenSampler s0 = ctx.sampler(SamplingParams.GREEDY);
                TokenSampler s1 = ctx.sampler(SamplingParams.GREEDY)) {
            LlamaContext llama = (LlamaContext) ctx;
            assertEquals(0, llama.stateBufferBytes(), "nothing before the first save");
            prefill(ctx, 0, Arrays.copyOf(prompt, k), 0);
            byte[] state = ctx.saveSequence(0);
            long kept = llama.stateBufferBytes();
            assertTrue(
                    kept >= state.length && kept <= LlamaContext.STATE_BUFFER_LIMIT,
                    kept + " bytes for a state of " + state.length);
            assertArrayEquals(state, ctx.saveSequence(0), "the same state again");
            assertTrue(ctx.restoreSequence(1, state));
            assertEquals(kept, llama.stateBufferBytes(), "a second save and a restore reuse it");
            int[] source = finishPrompt(ctx, s0, 0, k);
            assertArrayEquals(source, finishPrompt(ctx, s1, 1, k), "the restored sequence continues as the source");
        }
    }

    /**
     * A context computes on threads it keeps (a ggml thread pool, as llama-server's): the workers
     * start with the context, live across decodes, and end when it closes. ggml's fallback starts
     * and joins them inside every decode instead. The workers are counted by the name Linux gives a
     * new thread, its creator's. With the OpenMP variant they are libgomp's team of the decoding
     * thread instead (see LlamaThreadpools), kept across contexts while that thread lives.
     */
    @Test
    void keepsItsCpuThreadsFromOpenToClose() throws Exception {
        String name = "tp-" + ProcessHandle.current().pid() % 100000;
        int[] counts = new int[4];
        Thread t = new Thread(
                () -> {
                    counts[0] = threadsNamed(name);
                    try (InferenceContext ctx = model.newContext(new ContextParams(
                            512, 128, 128, 1, 3, 3, FlashAttention.AUTO, KvCacheType.F16, true, false))) {
                        counts[1] = threadsNamed(name);
                        prefill(ctx, 0, prompt, 0);
                        prefill(ctx, 0, new int[] {prompt[0]}, prompt.length);
                        counts[2] = threadsNamed(name);
                    }
                    counts[3] = threadsNamed(name);
                },
                name);
        t.start();
        t.join();
        assertEquals(1, counts[0], "only the test thread before the context");
        if (LlamaHome.backend().library().openMp()) {
            // libgomp's team of the decoding thread: made at its first decode, kept while it lives
            assertEquals(1, counts[1], "no workers before the first decode");
            assertEquals(3, counts[2], "the test thread's OpenMP team after two decodes");
            assertEquals(3, counts[3], "the team outlives the context, not its thread");
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (threadsNamed(name) > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, threadsNamed(name), "the team ends with the thread that made it");
            return;
        }
        assertEquals(3, counts[1], "the test thread and two pool workers once the context is open");
        assertEquals(3, counts[2], "the same workers after two decodes");
        assertEquals(1, counts[3], "the workers end with the context");
    }

    /** After {@code idle()} the pool's workers sleep: they use no CPU until the next decode, which still works. */
    @Test
    void anIdleContextsThreadsUseNoCpu() throws Exception {
        String name = "idle-" + ProcessHandle.current().pid() % 100000;
        long[] ticks = new long[1];
        int[][] tokens = new int[2][];
        Thread t = new Thread(
                () -> {
                    try (InferenceContext ctx = model.newContext(new ContextParams(
                                    512, 128, 128, 1, 3, 3, FlashAttention.AUTO, KvCacheType.F16, true, false));
                            TokenSampler s = ctx.sampler(SamplingParams.GREEDY)) {
                        prefill(ctx, 0, prompt, 0);
                        tokens[0] = generate(ctx, s, 0, prompt.length, prompt.length - 1, 4);
                        ctx.idle();
                        long before = cpuTicksOfThreadsNamed(name);
                        Thread.sleep(300);
                        ticks[0] = cpuTicksOfThreadsNamed(name) - before;
                        ctx.removeTokens(0, prompt.length - 1, -1);
                        try (TokenSampler again = ctx.sampler(SamplingParams.GREEDY)) {
                            prefill(ctx, 0, new int[] {prompt[prompt.length - 1]}, prompt.length - 1);
                            tokens[1] = generate(ctx, again, 0, prompt.length, 0, 4);
                        }
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                },
                name);
        t.start();
        t.join();
        // Polling workers burn about 34 ticks here (clock ticks are 10 ms).
        assertTrue(ticks[0] <= 3, "CPU ticks of an idle context's threads in 300 ms: " + ticks[0]);
        assertArrayEquals(tokens[0], tokens[1], "the pool resumes for the next decode");
    }

    /** utime + stime, in clock ticks, of this process's threads named {@code name}. */
    static long cpuTicksOfThreadsNamed(String name) {
        return tasksNamed(name).stream()
                .mapToLong(task -> {
                    try {
                        String stat = java.nio.file.Files.readString(task.resolve("stat"));
                        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15: utime, stime
                    } catch (java.io.IOException gone) {
                        return 0;
                    }
                })
                .sum();
    }

    private static int threadsNamed(String name) {
        return tasksNamed(name).size();
    }

    /** The {@code /proc/self/task} entries of this process's threads named {@code name} (Linux names a new thread after its creator). */
    private static List<java.nio.file.Path> tasksNamed(String name) {
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
            return tasks.filter(task -> {
                        try {
                            return java.nio.file.Files.readString(task.resolve("comm"))
                                    .strip()
                                    .equals(name);
                        } catch (java.io.IOException gone) {
                            return false;
                        }
                    })
                    .toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Decodes {@code tokens} into {@code seq} from position {@code from}, logits on the last one. */
    private static void prefill(InferenceContext ctx, int seq, int[] tokens, int from) {
        TokenBatch b = ctx.batch();
        b.clear();
        for (int i = 0; i < tokens.length; i++) {
            b.add(tokens[i], from + i, seq, i == tokens.length - 1);
        }
        ctx.decode();
    }

    /**
     * Prefills the prompt from position {@code k} on into {@code seq}, which holds its first
     * {@code k} tokens, and generates 6 tokens after it.
     */
    private static int[] finishPrompt(InferenceContext ctx, TokenSampler s, int seq, int k) {
        int[] rest = Arrays.copyOfRange(prompt, k, prompt.length);
        prefill(ctx, seq, rest, k);
        return generate(ctx, s, seq, prompt.length, rest.length - 1, 6);
    }

    /** Generates {@code n} tokens for one sequence after a prefill whose last token is at batch index {@code last}. */
    private static int[] generate(InferenceContext ctx, TokenSampler s, int seq, int position, int last, int n) {
        int[] out = new int[n];
        int index = last;
        for (int i = 0; i < n; i++) {
            out[i] = s.sample(index);
            ctx.batch().clear();
            index = ctx.batch().add(out[i], position + i, seq, true);
            ctx.decode();
        }
        return out;
    }

    @Test
    void infoComesFromTheModel() {
        assertEquals("qwen2", model.info().architecture());
        assertEquals(64, model.info().embeddingSize());
        assertEquals(2, model.info().layers());
        assertEquals(1024, model.info().trainContext());
        assertTrue(model.info().parameters() > 0);
        assertTrue(model.info().sizeBytes() > 0);
        assertFalse(model.info().description().isBlank());
    }

    @Test
    void loadReportsProgressUpToOne() {
        List<Float> seen = new ArrayList<>();
        try (LoadedModel m =
                LlamaHome.backend().load(ModelLoadParams.of(LlamaHome.tinyModel("qwen")), f -> seen.add(f))) {
            assertFalse(seen.isEmpty());
            assertEquals(1f, seen.getLast());
            for (int i = 1; i < seen.size(); i++) {
                assertTrue(seen.get(i) >= seen.get(i - 1), seen.toString());
            }
            assertEquals(model.info(), m.info());
        }
    }

    @Test
    void aProgressCallbackThatSaysNoAbortsTheLoad() {
        BackendException e = assertThrows(
                BackendException.class,
                () -> LlamaHome.backend().load(ModelLoadParams.of(LlamaHome.tinyModel("qwen")), f -> false));
        assertTrue(e.getMessage().contains("aborted by its progress callback"), e.getMessage());
    }

    @Test
    void aProgressCallbackThatThrowsFailsTheLoadNotTheJvm() {
        BackendException e = assertThrows(
                BackendException.class,
                () -> LlamaHome.backend().load(ModelLoadParams.of(LlamaHome.tinyModel("qwen")), f -> {
                    throw new IllegalStateException("boom");
                }));
        assertTrue(e.getMessage().contains("boom"), e.getMessage());
    }

    @Test
    void logprobsAreTheLogSoftmaxOfTheLogitsWithTheBestFirst() {
        try (InferenceContext ctx = context(1);
                TokenSampler s = ctx.sampler(SamplingParams.GREEDY)) {
            prefill(ctx, 0, prompt, 0);
            int last = prompt.length - 1;
            int greedy = s.sample(last);
            // The reference: the whole row copied to the heap and a plain two-pass log-softmax in doubles.
            float[] logits = forge.backend.llamacpp.ffm.Llama.llama_get_logits_ith(((LlamaContext) ctx).segment(), last)
                    .reinterpret(4L * model.vocabulary().size())
                    .toArray(java.lang.foreign.ValueLayout.JAVA_FLOAT);
            double max = Double.NEGATIVE_INFINITY;
            for (float x : logits) {
                max = Math.max(max, x);
            }
            double sum = 0;
            for (float x : logits) {
                sum += Math.exp(x - max);
            }
            double logZ = max + Math.log(sum);
            Integer[] order = new Integer[logits.length];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            Arrays.sort(order, (a, b) -> Float.compare(logits[b], logits[a]));

            TokenLogprobs lp = ctx.logprobs(last, greedy, 20);
            assertEquals(greedy, lp.token().id());
            assertEquals(logits[greedy] - logZ, lp.token().logprob(), 1e-4);
            assertEquals(20, lp.top().size());
            for (int i = 0; i < 20; i++) {
                assertEquals(logits[order[i]] - logZ, lp.top().get(i).logprob(), 1e-4, "rank " + i);
                assertEquals(logits[order[i]], logits[lp.top().get(i).id()], "rank " + i);
            }
            assertEquals(greedy, lp.top().get(0).id(), "greedy picks the most likely token");
            int other = order[order.length - 1];
            assertEquals(
                    logits[other] - logZ, ctx.logprobs(last, other, 0).token().logprob(), 1e-4);
            assertTrue(ctx.logprobs(last, other, 0).top().isEmpty());
            assertEquals(3, ctx.logprobs(last, greedy, 3).top().size());

            assertThrows(BackendException.class, () -> ctx.logprobs(0, greedy, 1), "index 0 has no logits");
            assertThrows(BackendException.class, () -> ctx.logprobs(last, greedy, 21));
            assertThrows(BackendException.class, () -> ctx.logprobs(last, -1, 1));
        }
    }

    @Test
    void greedyIsDeterministicAcrossContexts() {
        int[][] runs = new int[2][];
        for (int r = 0; r < 2; r++) {
            try (InferenceContext ctx = context(1);
                    TokenSampler s = ctx.sampler(SamplingParams.GREEDY)) {
                prefill(ctx, 0, prompt, 0);
                runs[r] = generate(ctx, s, 0, prompt.length, prompt.length - 1, 12);
                assertEquals(prompt.length + 11, ctx.maxPosition(0));
            }
        }
        assertArrayEquals(runs[0], runs[1]);
    }

    @Test
    void twoSequencesInOneBatchMatchEachAlone() {
        int[] other = model.vocabulary().tokenize("A different prompt entirely, with other words.", false, false);
        int n = 8;
        int[] alone0;
        int[] alone1;
        try (InferenceContext ctx = context(1);
                TokenSampler s = ctx.sampler(SamplingParams.GREEDY)) {
            prefill(ctx, 0, prompt, 0);
            alone0 = generate(ctx, s, 0, prompt.length, prompt.length - 1, n);
        }
        try (InferenceContext ctx = context(1);
                TokenSampler s = ctx.sampler(SamplingParams.GREEDY)) {
            prefill(ctx, 0, other, 0);
            alone1 = generate(ctx, s, 0, other.length, other.length - 1, n);
        }
        int[] together0 = new int[n];
        int[] together1 = new int[n];
        try (InferenceContext ctx = context(2);
                TokenSampler s0 = ctx.sampler(SamplingParams.GREEDY);
                TokenSampler s1 = ctx.sampler(SamplingParams.GREEDY)) {
            TokenBatch b = ctx.batch();
            b.clear();
            int last0 = -1;
            int last1 = -1;
            for (int i = 0; i < prompt.length; i++) {
                last0 = b.add(prompt[i], i, 0, i == prompt.length - 1);
            }
            for (int i = 0; i < other.length; i++) {
                last1 = b.add(other[i], i, 1, i == other.length - 1);
            }
            ctx.decode();
            for (int step = 0; step < n; step++) {
                together0[step] = s0.sample(last0);
                together1[step] = s1.sample(last1);
                b.clear();
                last0 = b.add(together0[step], prompt.length + step, 0, true);
                last1 = b.add(together1[step], other.length + step, 1, true);
                ctx.decode();
            }
        }
        assertArrayEquals(alone0, together0);
        assertArrayEquals(alone1, together1);
    }

    @Test
    void aCopiedPrefixContinuesIdentically() {
        int[] tail = model.vocabulary().tokenize("and then some more text", false, false);
        try (InferenceContext ctx = context(2);
                TokenSampler s0 = ctx.sampler(SamplingParams.GREEDY);
                TokenSampler s1 = ctx.sampler(SamplingParams.GREEDY)) {
            prefill(ctx, 0, prompt, 0);
            ctx.copySequence(0, 1, -1, -1);
            assertEquals(prompt.length - 1, ctx.maxPosition(1));
            // Both continue with the same tail: seq 0 extends, seq 1 extends its shared prefix.
            prefill(ctx, 0, tail, prompt.length);
            int[] a = generate(ctx, s0, 0, prompt.length + tail.length, tail.length - 1, 6);
            prefill(ctx, 1, tail, prompt.length);
            int[] b = generate(ctx, s1, 1, prompt.length + tail.length, tail.length - 1, 6);
            assertArrayEquals(a, b);

            // Cut seq 1 back to the prompt and redo the tail: the same continuation again.
            assertTrue(ctx.removeTokens(1, prompt.length, -1));
            assertEquals(prompt.length - 1, ctx.maxPosition(1));
            assertEquals(prompt.length + tail.length + 5, ctx.maxPosition(0), "seq 0 is untouched");
            try (TokenSampler s2 = ctx.sampler(SamplingParams.GREEDY)) {
                prefill(ctx, 1, tail, prompt.length);
                assertArrayEquals(a, generate(ctx, s2, 1, prompt.length + tail.length, tail.length - 1, 6));
            }

            ((LlamaContext) ctx).keepSequence(0);
            assertEquals(-1, ctx.maxPosition(1));
            ctx.clearMemory();
            assertEquals(-1, ctx.maxPosition(0));
        }
    }

    @Test
    void aSeededSamplerIsReproducible() {
        SamplingParams p = SamplingParams.builder().temperature(1.5f).seed(1234).build();
        int[][] runs = new int[2][];
        for (int r = 0; r < 2; r++) {
            try (InferenceContext ctx = context(1);
                    TokenSampler s = ctx.sampler(p)) {
                prefill(ctx, 0, prompt, 0);
                runs[r] = generate(ctx, s, 0, prompt.length, prompt.length - 1, 16);
            }
        }
        assertArrayEquals(runs[0], runs[1]);
    }

    @Test
    void penaltiesAndLogitBiasShapeTheChoice() {
        try (InferenceContext ctx = context(1)) {
            prefill(ctx, 0, prompt, 0);
            int greedy;
            try (TokenSampler s = ctx.sampler(SamplingParams.GREEDY)) {
                greedy = s.sample(prompt.length - 1);
            }
            try (TokenSampler s = ctx.sampler(SamplingParams.GREEDY.toBuilder()
                    .logitBias(Map.of(greedy, Float.NEGATIVE_INFINITY))
                    .build())) {
                assertNotEquals(greedy, s.sample(prompt.length - 1), "a banned token is never chosen");
            }
            SamplingParams penalized =
                    SamplingParams.GREEDY.toBuilder().repeatPenalty(1e6f).build();
            try (TokenSampler s = ctx.sampler(penalized)) {
                s.accept(greedy);
                assertNotEquals(
                        greedy, s.sample(prompt.length - 1), "a huge repeat penalty steers away from a seen token");
            }
            assertThrows(
                    BackendException.class,
                    () -> ctx.sampler(SamplingParams.GREEDY.toBuilder()
                            .logitBias(Map.of(1 << 20, 1f))
                            .build()));
        }
    }

    @Test
    void aGrammarRestrictsTheOutput() {
        for (SamplingParams base :
                List.of(SamplingParams.GREEDY, SamplingParams.builder().seed(7).build())) {
            try (InferenceContext ctx = context(1);
                    TokenSampler s = ctx.sampler(base.toBuilder()
                            .grammar("root ::= \"yes\" | \"no\"")
                            .build())) {
                prefill(ctx, 0, prompt, 0);
                ByteArrayOutputStream text = new ByteArrayOutputStream();
                int index = prompt.length - 1;
                boolean ended = false;
                for (int i = 0; i < 10 && !ended; i++) {
                    int t = s.sample(index);
                    if (model.vocabulary().isEndOfGeneration(t)) {
                        ended = true;
                    } else {
                        text.writeBytes(model.vocabulary().piece(t, false));
                        ctx.batch().clear();
                        index = ctx.batch().add(t, prompt.length + i, 0, true);
                        ctx.decode();
                    }
                }
                assertTrue(ended, "the grammar ends with an end-of-generation token");
                String answer = text.toString(StandardCharsets.UTF_8);
                assertTrue(answer.equals("yes") || answer.equals("no"), answer);
            }
        }
    }

    /** Samples until end-of-generation or {@code max} tokens; the text, and whether it ended. */
    private static String run(InferenceContext ctx, TokenSampler s, int max, boolean[] ended) {
        prefill(ctx, 0, prompt, 0);
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        int index = prompt.length - 1;
        for (int i = 0; i < max; i++) {
            int t = s.sample(index);
            if (model.vocabulary().isEndOfGeneration(t)) {
                ended[0] = true;
                break;
            }
            text.writeBytes(model.vocabulary().piece(t, true));
            ctx.batch().clear();
            index = ctx.batch().add(t, prompt.length + i, 0, true);
            ctx.decode();
        }
        return text.toString(StandardCharsets.UTF_8);
    }

    /** Sampling with {@code p} from the prompt ends (its grammar completes) within {@code max} tokens, as {@code regex}. */
    private static void assertGrammarEnds(SamplingParams p, int max, String regex) {
        try (InferenceContext ctx = context(1);
                TokenSampler s = ctx.sampler(p)) {
            boolean[] ended = {false};
            String out = run(ctx, s, max, ended);
            assertTrue(ended[0] && out.matches(regex), out);
        }
    }

    @Test
    void aLazyGrammarEngagesAtATriggerToken() {
        // <tool_call> is one (user-defined) token of the qwen vocabulary: it triggers as a token.
        int trigger = model.vocabulary().tokenOf("<tool_call>").orElseThrow();
        SamplingParams p = SamplingParams.GREEDY.toBuilder()
                .logitBias(Map.of(trigger, 30f))
                .lazyGrammar("root ::= \"<tool_call>\" [0-9] [0-9] [0-9]", List.of("<tool_call>"))
                .build();
        assertGrammarEnds(p, 20, "<tool_call>[0-9]{3}");
    }

    @Test
    void aLazyGrammarEngagesAtATriggerText() {
        // "ab" is two tokens: it triggers as a literal pattern; output before it is free.
        int a = model.vocabulary().tokenOf("a").orElseThrow();
        int b = model.vocabulary().tokenOf("b").orElseThrow();
        SamplingParams p = SamplingParams.builder()
                .temperature(1f)
                .seed(3)
                .logitBias(Map.of(a, 30f, b, 30f))
                .lazyGrammar("root ::= \"ab\" [0-9] [0-9] [0-9]", List.of("ab"))
                .build();
        assertGrammarEnds(p, 60, "[ab]*ab[0-9]{3}");
    }

    @Test
    void anUntriggeredLazyGrammarLeavesTheOutputFree() {
        try (InferenceContext ctx = context(1)) {
            String free;
            try (TokenSampler s = ctx.sampler(SamplingParams.GREEDY)) {
                free = run(ctx, s, 8, new boolean[1]);
            }
            ctx.clearMemory();
            try (TokenSampler s = ctx.sampler(SamplingParams.GREEDY.toBuilder()
                    .lazyGrammar("root ::= \"zq[never]\" \"!\"", List.of("zq[never]"))
                    .build())) {
                assertEquals(free, run(ctx, s, 8, new boolean[1]));
            }
        }
    }

    @Test
    void regexEscapeMatchesLiterally() {
        assertEquals("\\[a\\]\\.\\*\\(x\\)\\|\\\\", LlamaSampler.regexEscape("[a].*(x)|\\"));
    }

    @Test
    void anInvalidGrammarIsABackendException() {
        try (InferenceContext ctx = context(1)) {
            for (String g :
                    List.of("root ::= (\"yes\"", "root ::= undefined-rule", "start ::= \"a\"", "root ::= [a-")) {
                BackendException e = assertThrows(
                        BackendException.class,
                        () -> ctx.sampler(
                                SamplingParams.GREEDY.toBuilder().grammar(g).build()));
                assertTrue(e.getMessage().startsWith("invalid grammar"), e.getMessage());
            }
            assertDoesNotThrow(() -> ctx.sampler(SamplingParams.GREEDY.toBuilder()
                            .grammar("root ::= [a-z]+")
                            .build())
                    .close());
        }
    }

    @Test
    void misuseIsABackendExceptionNotACrash() throws Exception {
        InferenceContext ctx = context(2);
        TokenSampler s = ctx.sampler(SamplingParams.GREEDY);
        TokenBatch b = ctx.batch();
        assertThrows(BackendException.class, ctx::decode, "empty batch");
        assertThrows(BackendException.class, () -> s.sample(0), "nothing decoded yet");
        assertThrows(BackendException.class, () -> b.add(-1, 0, 0, true));
        assertThrows(BackendException.class, () -> b.add(model.vocabulary().size(), 0, 0, true));
        assertThrows(BackendException.class, () -> b.add(1, 0, 2, true), "sequence out of range");
        assertThrows(BackendException.class, () -> ctx.removeTokens(5, 0, -1));
        assertThrows(BackendException.class, () -> ctx.copySequence(0, 7, 0, -1));
        prefill(ctx, 0, prompt, 0);
        assertThrows(BackendException.class, () -> s.sample(0), "no logits at index 0");
        assertThrows(BackendException.class, () -> s.sample(prompt.length));
        assertThrows(BackendException.class, () -> s.accept(-3));
        assertThrows(BackendException.class, () -> s.sample(-1));
        s.sample(prompt.length - 1);
        b.clear();
        for (int i = 0; i < b.capacity(); i++) {
            b.add(prompt[i % prompt.length], 100 + i, 1, false);
        }
        assertThrows(BackendException.class, () -> b.add(prompt[0], 0, 1, false), "batch full");

        // Another thread.
        ExecutionException e = assertThrows(
                ExecutionException.class,
                () -> CompletableFuture.runAsync(ctx::decode).get());
        assertTrue(e.getCause() instanceof BackendException, e.getCause().toString());
        assertThrows(
                ExecutionException.class,
                () -> CompletableFuture.runAsync(ctx::close).get());

        // The model refuses to close under an open context.
        assertThrows(BackendException.class, model::close);

        ctx.close();
        ctx.close();
        assertThrows(BackendException.class, ctx::decode);
        assertThrows(BackendException.class, () -> s.sample(0), "samplers close with their context");
        assertThrows(BackendException.class, () -> b.add(1, 0, 0, true));
        assertThrows(BackendException.class, () -> ctx.sampler(SamplingParams.GREEDY));
        s.close();
    }

    @Test
    void aFullKvCacheIsABackendException() {
        try (InferenceContext ctx = model.newContext(
                new ContextParams(256, 256, 256, 1, 2, 2, FlashAttention.AUTO, KvCacheType.F16, true, false))) {
            int n = ctx.contextSize();
            int pos = 0;
            BackendException e = null;
            while (e == null && pos <= 2 * n) {
                TokenBatch b = ctx.batch();
                b.clear();
                for (int i = 0; i < 200; i++) {
                    b.add(prompt[i % prompt.length], pos + i, 0, i == 199);
                }
                try {
                    ctx.decode();
                    pos += 200;
                } catch (BackendException x) {
                    e = x;
                }
            }
            assertTrue(e != null && e.getMessage().startsWith("no KV slot"), String.valueOf(e));
        }
    }

    @Test
    void quantizesF32ToQ8ZeroIntoASmallerLoadableFile(@TempDir Path dir) throws Exception {
        Path in = LlamaHome.tinyModel("llama");
        Path out = dir.resolve("tiny-llama-q8_0.gguf");
        LlamaHome.backend().quantizer().orElseThrow().quantize(in, out, "q8_0", 2);
        assertTrue(Files.size(out) < Files.size(in), Files.size(out) + " vs " + Files.size(in));
        try (LoadedModel q = LlamaHome.backend().load(ModelLoadParams.of(out), LoadProgress.NONE);
                InferenceContext ctx = q.newContext(ContextParams.of(256, 1, 2));
                TokenSampler s = ctx.sampler(SamplingParams.GREEDY)) {
            assertTrue(q.info().description().contains("Q8_0"), q.info().description());
            assertEquals("llama", q.info().architecture());
            int[] p = q.vocabulary().tokenize("Hello", true, false);
            prefill(ctx, 0, p, 0);
            int t = s.sample(p.length - 1);
            assertTrue(t >= 0 && t < q.vocabulary().size());
        }
    }

    @Test
    void quantizesF16ToQ4KmWhenRowsFitSuperBlocks(@TempDir Path dir) throws Exception {
        // K-quants pack rows in 256-wide super-blocks: a 256-wide model quantizes every matrix.
        Path in = dir.resolve("wide-f16.gguf");
        forge.lib.gguf.synth.SyntheticModels.write(
                forge.lib.gguf.synth.SynthSpec.tiny("qwen")
                        .withShape(256, 2, 4, 2, 512)
                        .withTensorType(forge.lib.gguf.GgmlType.F16),
                in);
        Path out = dir.resolve("wide-q4_k_m.gguf");
        LlamaHome.backend().quantizer().orElseThrow().quantize(in, out, "Q4_K_M", 2);
        assertTrue(Files.size(out) * 2 < Files.size(in), Files.size(out) + " vs " + Files.size(in));
        try (LoadedModel q = LlamaHome.backend().load(ModelLoadParams.of(out), LoadProgress.NONE);
                InferenceContext ctx = q.newContext(ContextParams.of(256, 1, 2));
                TokenSampler s = ctx.sampler(SamplingParams.GREEDY)) {
            assertTrue(q.info().description().contains("Q4_K"), q.info().description());
            int[] p = q.vocabulary().tokenize("Hello", true, false);
            prefill(ctx, 0, p, 0);
            int t = s.sample(p.length - 1);
            assertTrue(t >= 0 && t < q.vocabulary().size());
        }
    }

    @Test
    void aRerankersContextPoolsWithItsRankHead(@TempDir Path dir) {
        Path file = dir.resolve("rerank.gguf");
        SyntheticModels.reranker(SynthSpec.tiny("qwen").withArchitecture("qwen3"))
                .write(file);
        try (LoadedModel reranker = LlamaHome.backend().load(ModelLoadParams.of(file), LoadProgress.NONE);
                InferenceContext ctx = reranker.newContext(
                        new ContextParams(128, 128, 128, 1, 2, 2, FlashAttention.AUTO, KvCacheType.F16, true, true))) {
            int[] tokens = reranker.vocabulary().tokenize("<|im_start|>user\nhello world<|im_end|>", false, true);
            for (int i = 0; i < tokens.length; i++) {
                ctx.batch().add(tokens[i], i, 0, true);
            }
            ctx.decode();
            float[] scores = ctx.embedding(0);
            // Two labels (yes, no) through Qwen3's softmax: not the 64 floats of an embedding.
            assertEquals(2, scores.length);
            assertEquals(1f, scores[0] + scores[1], 1e-5f);
            assertTrue(scores[0] > 0 && scores[0] < 1);
        }
    }
}
