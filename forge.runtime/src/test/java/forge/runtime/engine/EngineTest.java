package forge.runtime.engine;

import static forge.runtime.engine.FakeVocabulary.prompt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.BackendException;
import forge.api.backend.ContextParams;
import forge.api.sampler.SamplingParams;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** The engine's thread and queue over a {@link FakeModel}: admission, refusal, idling, shutdown and failure. */
class EngineTest {

    private final AtomicReference<FakeContext> context = new AtomicReference<>();
    private final FakeModel model = FakeModel.of(context::set);

    private static EngineConfig config(int slots, int ctx, int queue, boolean warmup) {
        return new EngineConfig(
                slots,
                ctx,
                16,
                16,
                1,
                1,
                queue,
                forge.api.backend.FlashAttention.AUTO,
                forge.api.backend.KvCacheType.F16,
                "test",
                warmup,
                Speculation.OFF,
                false);
    }

    private static GenerationRequest request(String id, int[] prompt, int maxTokens) {
        return new GenerationRequest(id, prompt, SamplingParams.GREEDY, maxTokens, List.of(), Set.of(), false);
    }

    /** Every event of a generation, up to its last. */
    private static List<GenerationEvent> drain(Generation g) throws InterruptedException {
        List<GenerationEvent> events = new ArrayList<>();
        while (true) {
            GenerationEvent e = g.next(10, TimeUnit.SECONDS);
            if (e == null) {
                throw new AssertionError("no event within 10 s");
            }
            events.add(e);
            if (e instanceof GenerationEvent.Done || e instanceof GenerationEvent.Failed) {
                return events;
            }
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS), "the test never released the engine thread");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits until the engine's context has recorded {@code call} {@code times} times. */
    private void await(String call, int times) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (context.get().calls(call).size() < times) {
            assertTrue(
                    System.nanoTime() < deadline,
                    "no " + call + " in " + context.get().calls());
            Thread.sleep(5);
        }
    }

    @Test
    void itCreatesOneContextWarmsItUpAndServes() throws Exception {
        try (Engine engine = new Engine("fake", model, config(2, 64, 4, true))) {
            ContextParams p = model.params;
            assertEquals(64, p.contextSize());
            assertEquals(2, p.seqMax());
            assertEquals(16, p.batchSize());
            assertFalse(p.kvUnified(), "a KV stream per slot");
            assertEquals(
                    List.of("decode 0@0:0 0@1:1", "clear"),
                    context.get().calls().subList(0, 2),
                    "BOS and EOS, then forgotten");
            List<GenerationEvent> events = drain(engine.submit(request("g", prompt("abc"), 3)));
            assertEquals(
                    FinishReason.LENGTH,
                    assertInstanceOf(GenerationEvent.Done.class, events.getLast())
                            .reason());
            assertEquals(
                    "zzz",
                    events.stream()
                            .filter(e -> e instanceof GenerationEvent.Text)
                            .map(e -> ((GenerationEvent.Text) e).text())
                            .reduce("", String::concat));
            EngineSnapshot s = engine.snapshot();
            assertEquals(0, s.busySlots(), "current once the final event is out");
            assertEquals(4, s.prefilledTokens());
            assertEquals(64, s.kvCells());
        }
        assertEquals("close", context.get().calls().getLast());
    }

    /** Once there is nothing to do the context is told so, once, and again only after it decoded again. */
    @Test
    void anIdleEngineTellsItsContextOnce() throws Exception {
        try (Engine engine = new Engine("fake", model, config(1, 64, 4, true))) {
            await("idle", 1);
            drain(engine.submit(request("a", prompt("abc"), 2)));
            await("idle", 2);
            // Proves that nothing more happens: a short, bounded look at an engine with no work.
            Thread.sleep(150);
            assertEquals(2, context.get().calls("idle").size());
        }
    }

    /**
     * In one KV pool a request may use the whole context: more than an equal share is served, and
     * only more than the whole context is refused up front (400), before anything reaches it.
     */
    @Test
    void inOnePoolARequestMayUseTheWholeContextAndOnlyMoreIsRefused() throws Exception {
        try (Engine engine = new Engine("fake", model, config(2, 32, 4, false).withKvUnified(true))) {
            ContextParams p = model.params;
            assertTrue(p.kvUnified(), "one KV pool");
            assertEquals(32, p.contextSize(), "n_ctx is the whole pool");
            assertEquals(32, engine.config().slotContext());
            EngineException tooLong =
                    assertThrows(EngineException.class, () -> engine.submit(request("long", new int[32], 1)));
            assertEquals(EngineException.Code.CONTEXT_LENGTH_EXCEEDED, tooLong.code());
            assertTrue(tooLong.getMessage().contains("one KV pool"), tooLong.getMessage());
            EngineException tooMany =
                    assertThrows(EngineException.class, () -> engine.submit(request("many", new int[20], 13)));
            assertEquals(EngineException.Code.CONTEXT_LENGTH_EXCEEDED, tooMany.code());
            // 20 + 8 cells: more than the 16 of a stream per slot.
            List<GenerationEvent> events = drain(engine.submit(request("big", prompt("abcdefghijklmnopqrs"), 8)));
            assertEquals(
                    8,
                    assertInstanceOf(GenerationEvent.Done.class, events.getLast())
                            .timings()
                            .completionTokens());
        }
    }

    @Test
    void whatCannotFitTheSlotIsRefusedUpFront() {
        try (Engine engine = new Engine("fake", model, config(2, 32, 4, false))) {
            EngineException tooLong =
                    assertThrows(EngineException.class, () -> engine.submit(request("long", new int[16], 1)));
            assertEquals(EngineException.Code.CONTEXT_LENGTH_EXCEEDED, tooLong.code());
            EngineException tooMany =
                    assertThrows(EngineException.class, () -> engine.submit(request("many", new int[10], 7)));
            assertEquals(EngineException.Code.CONTEXT_LENGTH_EXCEEDED, tooMany.code());
            assertEquals(
                    List.of(),
                    context.get().calls().stream()
                            .filter(c -> !c.equals("idle"))
                            .toList(),
                    "nothing reached the context");
        }
    }

    /** Submits a request whose first decode waits for {@code release}; returns once the engine thread is in it. */
    private Generation runHeld(Engine engine, CountDownLatch release) throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        context.get().beforeDecode(n -> {
            if (n == 1) {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        Generation running = engine.submit(request("running", prompt("a"), 2));
        assertTrue(entered.await(10, TimeUnit.SECONDS));
        return running;
    }

    @Test
    void aFullQueueRefusesNewRequests() throws Exception {
        try (Engine engine = new Engine("fake", model, config(1, 64, 1, false))) {
            CountDownLatch release = new CountDownLatch(1);
            Generation running = runHeld(engine, release);
            // Capacity 1 plus one per slot may wait.
            List<Generation> waiting =
                    List.of(engine.submit(request("w1", prompt("b"), 2)), engine.submit(request("w2", prompt("c"), 2)));
            assertEquals(2, engine.queued());
            EngineException full =
                    assertThrows(EngineException.class, () -> engine.submit(request("w3", prompt("d"), 2)));
            assertEquals(EngineException.Code.QUEUE_FULL, full.code());
            release.countDown();
            for (Generation g : List.of(running, waiting.get(0), waiting.get(1))) {
                assertInstanceOf(GenerationEvent.Done.class, drain(g).getLast());
            }
            assertEquals(0, engine.queued());
        }
    }

    @Test
    void aRequestCancelledWhileQueuedEndsWithoutTouchingTheContext() throws Exception {
        try (Engine engine = new Engine("fake", model, config(1, 64, 4, false))) {
            CountDownLatch release = new CountDownLatch(1);
            Generation running = runHeld(engine, release);
            Generation queued = engine.submit(request("queued", prompt("bcd"), 2));
            queued.cancel();
            release.countDown();
            assertEquals(
                    FinishReason.LENGTH,
                    assertInstanceOf(GenerationEvent.Done.class, drain(running).getLast())
                            .reason());
            List<GenerationEvent> events = drain(queued);
            GenerationEvent.Done done = assertInstanceOf(GenerationEvent.Done.class, events.getFirst());
            assertEquals(FinishReason.CANCELLED, done.reason());
            assertEquals(new Timings(0, 4, 0, 0, 0, 0, 0, 0, 0), done.timings());
            assertEquals(
                    List.of("sampler 1"), context.get().calls("sampler "), "only the running request had a sampler");
        }
    }

    @Test
    void closingFailsWhatRunsAndWhatWaitsThenClosesTheContext() throws Exception {
        Engine engine = new Engine("fake", model, config(1, 4096, 4, false));
        context.get().beforeDecode(n -> LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)));
        Generation running = engine.submit(request("running", prompt("a"), -1));
        Generation queued = engine.submit(request("queued", prompt("b"), 2));
        assertInstanceOf(GenerationEvent.Text.class, running.next(10, TimeUnit.SECONDS), "it runs");
        engine.close();
        for (Generation g : List.of(running, queued)) {
            EngineException e = assertInstanceOf(
                    EngineException.class,
                    assertInstanceOf(GenerationEvent.Failed.class, drain(g).getLast())
                            .error());
            assertEquals(EngineException.Code.UNAVAILABLE, e.code());
            assertEquals("the engine for fake was shut down", e.getMessage());
        }
        assertEquals("close", context.get().calls().getLast());
        EngineException refused =
                assertThrows(EngineException.class, () -> engine.submit(request("late", prompt("c"), 2)));
        assertEquals(EngineException.Code.UNAVAILABLE, refused.code());
    }

    /**
     * A failure of the context itself (a bug, a native error reported as an exception) fails every
     * running request at once; the engine recreates its context, meanwhile refusing new work with
     * UNAVAILABLE (503 and Retry-After over HTTP), and then serves again.
     */
    @Test
    void aFailedContextFailsItsRequestsAndIsRecreated() throws Exception {
        List<FakeContext> contexts = new java.util.concurrent.CopyOnWriteArrayList<>();
        CountDownLatch recreate = new CountDownLatch(1);
        // The first decode (a's prompt) waits until b is submitted, so the second decode, which
        // crashes, holds both: without it the engine thread could crash before b arrived and b
        // would be refused instead of failed (a race this test lost on busy machines).
        CountDownLatch bSubmitted = new CountDownLatch(1);
        FakeModel failing = new FakeModel(p -> {
            if (!contexts.isEmpty()) {
                try {
                    recreate.await(); // hold the recreation so the test sees the failed state
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            FakeContext c = new FakeContext(p.contextSize(), p.seqMax(), p.batchSize(), p.kvUnified());
            if (contexts.isEmpty()) {
                c.beforeDecode(n -> {
                    if (n == 1) {
                        awaitUninterruptibly(bSubmitted);
                    } else if (n == 2) {
                        throw new IllegalStateException("native crash");
                    }
                });
            }
            contexts.add(c);
            return c;
        });
        try (Engine engine = new Engine("fake", failing, config(2, 64, 4, false))) {
            Generation a = engine.submit(request("a", prompt("abc"), 10));
            Generation b = engine.submit(request("b", prompt("abd"), 10));
            bSubmitted.countDown();
            assertEquals(
                    "the engine for fake failed: native crash",
                    assertInstanceOf(GenerationEvent.Failed.class, drain(a).getLast())
                            .error()
                            .getMessage());
            assertInstanceOf(GenerationEvent.Failed.class, drain(b).getLast());
            EngineHealth failed = engine.health();
            assertEquals(EngineHealth.State.FAILED, failed.state());
            assertTrue(failed.retrying());
            assertEquals("the engine for fake failed: native crash", failed.reason());
            EngineException refused =
                    assertThrows(EngineException.class, () -> engine.submit(request("c", prompt("c"), 2)));
            assertEquals(EngineException.Code.UNAVAILABLE, refused.code());
            assertTrue(refused.getMessage().contains("recreating its context"), refused.getMessage());
            recreate.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (engine.health().state() != EngineHealth.State.RUNNING && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(EngineHealth.running(1), engine.health());
            assertEquals(
                    List.of("close"),
                    contexts.getFirst()
                            .calls()
                            .subList(
                                    contexts.getFirst().calls().size() - 1,
                                    contexts.getFirst().calls().size()),
                    "the failed context is closed");
            assertEquals(
                    FinishReason.LENGTH,
                    assertInstanceOf(
                                    GenerationEvent.Done.class,
                                    drain(engine.submit(request("d", prompt("abc"), 3)))
                                            .getLast())
                            .reason());
        }
    }

    /** A context that cannot be recreated: the engine gives up after its attempts and refuses requests, saying why. */
    @Test
    void anEngineWhoseContextCannotBeRecreatedGivesUpAndSaysWhy() throws Exception {
        java.util.concurrent.atomic.AtomicInteger made = new java.util.concurrent.atomic.AtomicInteger();
        FakeModel failing = new FakeModel(p -> {
            if (made.getAndIncrement() > 0) {
                throw new BackendException("out of device memory");
            }
            FakeContext c = new FakeContext(p.contextSize(), p.seqMax(), p.batchSize(), p.kvUnified());
            c.beforeDecode(n -> {
                throw new IllegalStateException("native crash");
            });
            return c;
        });
        try (Engine engine = new Engine("fake", failing, config(1, 64, 4, false))) {
            assertInstanceOf(
                    GenerationEvent.Failed.class,
                    drain(engine.submit(request("a", prompt("abc"), 4))).getLast());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (engine.health().retrying() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            EngineHealth gaveUp = engine.health();
            assertEquals(EngineHealth.State.FAILED, gaveUp.state());
            assertFalse(gaveUp.retrying());
            assertEquals(1 + Engine.MAX_RECREATE_ATTEMPTS, made.get(), "the first context and each attempt");
            EngineException refused =
                    assertThrows(EngineException.class, () -> engine.submit(request("b", prompt("b"), 2)));
            assertEquals(EngineException.Code.UNAVAILABLE, refused.code());
            assertEquals("the engine for fake failed: native crash", refused.getMessage());
        }
    }

    @Test
    void aDecodeFailureFailsItsRequestsAndTheEngineGoesOn() throws Exception {
        try (Engine engine = new Engine("fake", model, config(1, 64, 4, false))) {
            context.get().beforeDecode(n -> {
                if (n == 1) {
                    throw new BackendException("no KV space");
                }
            });
            var failed = assertInstanceOf(
                    GenerationEvent.Failed.class,
                    drain(engine.submit(request("a", prompt("abc"), 2))).getLast());
            assertEquals("no KV space", failed.error().getMessage());
            assertEquals(
                    FinishReason.LENGTH,
                    assertInstanceOf(
                                    GenerationEvent.Done.class,
                                    drain(engine.submit(request("b", prompt("abc"), 2)))
                                            .getLast())
                            .reason());
        }
    }

    @Test
    void aContextThatCannotBeCreatedMakesTheEngineUnavailable() {
        FakeModel broken = new FakeModel(p -> {
            throw new BackendException("not enough memory");
        });
        EngineException e =
                assertThrows(EngineException.class, () -> new Engine("fake", broken, config(1, 64, 4, true)));
        assertEquals(EngineException.Code.UNAVAILABLE, e.code());
        assertEquals("cannot create the inference context for fake: not enough memory", e.getMessage());
    }

    /** While a request runs, the snapshot is republished at least every {@value Engine#SNAPSHOT_INTERVAL_MS} ms. */
    @Test
    void theSnapshotFollowsARunningRequest() throws Exception {
        try (Engine engine = new Engine("fake", model, config(1, 4096, 4, false))) {
            context.get().beforeDecode(n -> LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)));
            Generation g = engine.submit(request("long", prompt("a"), 3000));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (engine.snapshot().slots().getFirst().generated() < 20) {
                assertTrue(System.nanoTime() < deadline, "the snapshot does not follow: " + engine.snapshot());
                Thread.sleep(20);
            }
            SlotSnapshot slot = engine.snapshot().slots().getFirst();
            assertEquals(SlotState.DECODE, slot.state());
            assertEquals("long", slot.requestId());
            g.cancel();
            assertEquals(
                    FinishReason.CANCELLED,
                    assertInstanceOf(GenerationEvent.Done.class, drain(g).getLast())
                            .reason());
            assertEquals(SlotState.IDLE, engine.snapshot().slots().getFirst().state());
        }
    }
}
