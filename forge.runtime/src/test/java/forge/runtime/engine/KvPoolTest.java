package forge.runtime.engine;

import static forge.runtime.engine.FakeVocabulary.A;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.AdapterScale;
import forge.api.backend.KvCacheType;
import forge.api.sampler.SamplingParams;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The scheduler over one KV pool the slots share ({@code --kv-unified}), step by step against a
 * unified {@link FakeContext}, which fails the test the moment its sequences together would hold
 * more cells than the pool has (where llama_decode would return 1): a request using more than an
 * equal share beside another, idle slots' prefixes evicted least recently used first (into the host
 * prompt cache), and the 503s of a pool that cannot hold a request, with nothing leaked.
 */
class KvPoolTest extends SchedulerFixture {

    private static final PromptCache.Key KEY =
            new PromptCache.Key("/models/fake.gguf", 1, 2, "ab", 100, 3, KvCacheType.F16, "AUTO");

    /** {@code slots} slots sharing a pool of {@code cells}; a host prompt cache when {@code cache} is not null. */
    private void pool(int slots, int cells, int batch, PromptCache cache) {
        scheduler(
                        new FakeContext(cells, slots, batch, true),
                        slots,
                        cells,
                        cache == null ? PromptCache.OFF : cache,
                        cache == null ? null : KEY)
                .pool(cells);
    }

    private static int generated(List<GenerationEvent> events) {
        return done(events).timings().completionTokens();
    }

    private static EngineException refused(List<GenerationEvent> events) {
        return assertInstanceOf(EngineException.class, failed(events));
    }

    /** {@code n} tokens, each {@code A + first}, {@code A + first + 1}, ... cycling over 8 letters. */
    private static int[] tokens(int first, int n) {
        int[] t = new int[n];
        for (int i = 0; i < n; i++) {
            t[i] = A + (first + i) % 8;
        }
        return t;
    }

    private static int[] same(int letter, int n) {
        int[] t = new int[n];
        Arrays.fill(t, A + letter);
        return t;
    }

    @Test
    void aLongRequestUsesMoreThanAnEqualShareWhileASmallOneRuns() throws InterruptedException {
        pool(2, 64, 16, null);
        // 40 + 16 = 56 cells: more than the 32 a stream per slot would give it.
        Generation agent = start("agent", same(0, 40), 16);
        Generation autocomplete = start("autocomplete", same(1, 5), 3);
        finishAll();
        assertEquals(16, generated(events(agent)));
        assertEquals(3, generated(events(autocomplete)));
        assertEquals(55, context.cells(0).length, "the long request's cells: its prompt and 15 computed tokens");
        assertEquals(0, scheduler.poolEvictions());
        assertEquals(0, context.openSamplers());
    }

    @Test
    void idleSlotsPrefixesAreEvictedLeastRecentlyUsedFirstIntoTheHostCache() throws InterruptedException {
        PromptCache cache = new PromptCache(1 << 20);
        pool(3, 100, 32, cache);
        int[] a = same(2, 35);
        int[] b = same(3, 35);
        start("a", a, 1);
        finishAll();
        start("b", b, 1);
        finishAll();
        assertArrayEquals(a, context.cells(0));
        assertArrayEquals(b, context.cells(1));
        context.clearCalls();

        // 50 + 5 cells beside the idle 70: one idle slot must go, the least recently used (a's).
        Generation c = start("c", same(4, 50), 5);
        finishAll();
        assertEquals(5, generated(events(c)));
        assertEquals(
                List.of("save 0 (35)", "remove 0 [0,-1)"),
                context.calls().stream()
                        .filter(l -> l.startsWith("save") || l.startsWith("remove 0") || l.startsWith("remove 1"))
                        .toList());
        assertEquals(1, scheduler.poolEvictions());
        assertArrayEquals(b, context.cells(1), "b's prefix is still cached");
        assertEquals(1, cache.size(), "a's cells went to the host prompt cache");

        // The prefix cache still works for b, and a comes back from the host cache.
        long reused = snapshot().reusedTokens();
        Generation bAgain = start("b again", b, 1);
        finishAll();
        assertEquals(reused + 34, snapshot().reusedTokens(), "b's prompt but its last token came from its slot");
        assertEquals(1, generated(events(bAgain)));
        context.clearCalls();
        Generation aAgain = start("a again", a, 1);
        finishAll();
        assertEquals(1, generated(events(aAgain)));
        assertTrue(
                context.calls().stream().anyMatch(l -> l.startsWith("restore") && l.endsWith("(35)")),
                "a's cells restored from the host cache: " + context.calls());
        assertEquals(1, snapshot().cacheRestores());
    }

    @Test
    void aPromptThatDoesNotFitBesideTheRunningRequestsIsRefusedWith503AndTakesNoSlot() throws InterruptedException {
        pool(2, 64, 16, null);
        Generation agent = start("agent", same(0, 40), 10);
        for (int i = 0; i < 3; i++) {
            scheduler.step(); // 40 prompt cells computed
        }
        Generation late = start("late", same(1, 30), 1);
        EngineException e = refused(events(late));
        assertEquals(EngineException.Code.UNAVAILABLE, e.code());
        assertTrue(e.getMessage().contains("retry"), e.getMessage());
        assertEquals(SlotState.IDLE, snapshot().slots().get(1).state(), "no slot taken");
        assertEquals(1, context.openSamplers(), "none made for it");
        finishAll();
        assertEquals(10, generated(events(agent)), "the running request is untouched");
        assertEquals(1, scheduler.poolRefusals());
        // Once the agent is done the same prompt fits: the 503 said to retry, not that it can never run.
        Generation retried = start("retried", same(1, 30), 1);
        finishAll();
        assertEquals(1, generated(events(retried)));
        assertEquals(0, context.openSamplers());
    }

    @Test
    void whenDecodingRunsOutOfCellsTheNewestRequestEndsWith503AndTheFirstFinishes() throws InterruptedException {
        pool(2, 64, 16, null);
        // n-gram drafts too: they may take only free cells, never the pool's last.
        scheduler.speculation(new Speculation(2, 4, 0));
        Generation first = start("first", tokens(0, 20), 40);
        Generation second = start("second", tokens(0, 20), 40);
        finishAll();
        assertEquals(40, generated(events(first)), "the first request gets all it asked for");
        EngineException e = refused(events(second));
        assertEquals(EngineException.Code.UNAVAILABLE, e.code());
        assertTrue(e.getMessage().contains("KV pool"), e.getMessage());
        assertEquals(0, context.openSamplers(), "no sampler leaked");
        assertFalse(scheduler.anyActive());
        assertEquals(1, scheduler.poolRefusals());
        assertTrue(snapshot().draftTokens() > 0, "drafts were proposed");
        assertTrue(context.pooled() <= 64);
        // Both slots serve again.
        Generation a = start("a", same(5, 10), 3);
        Generation b = start("b", same(6, 10), 3);
        finishAll();
        assertEquals(3, generated(events(a)));
        assertEquals(3, generated(events(b)));
    }

    /**
     * Requests of different LoRA adapter sets share the pool: one decode carries one set, and the
     * cell every decoding request needs next is kept for it whichever set the step decodes, so the
     * pool never overflows and both finish.
     */
    @Test
    void requestsOfDifferentAdapterSetsShareThePool() throws InterruptedException {
        pool(2, 64, 16, null);
        AdapterScale x = new AdapterScale(new SchedulerTest.FakeAdapter("x"), 1f);
        // 20 + 10 cells each: both fit the pool of 64, with more than an equal share's 32 would leave spare.
        Generation plain = start("plain", same(0, 20), 10);
        Generation withX = new Generation(
                new GenerationRequest("with x", same(1, 20), SamplingParams.GREEDY, 10, List.of(), Set.of(), false)
                        .withAdapters(List.of(x)));
        scheduler.start(withX);
        finishAll();
        assertEquals(10, generated(events(plain)));
        assertEquals(10, generated(events(withX)));
        assertTrue(context.calls().stream().anyMatch(l -> l.startsWith("adapters [x@1.0]")), "x was applied");
        assertEquals(0, scheduler.poolRefusals());
        assertEquals(58, context.pooled(), "both requests' cells stay cached in the pool");
    }
}
