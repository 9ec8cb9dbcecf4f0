package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.ForgeException;
import forge.api.sampler.SamplingParams;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What the tests that step a {@link Scheduler} by hand over a {@link FakeContext} share: the
 * scheduler and its fake, the snapshots it publishes, starting requests, stepping them to their
 * end, and reading the events they left.
 */
abstract class SchedulerFixture {

    protected FakeContext context;
    protected Scheduler scheduler;
    protected final List<EngineSnapshot> snapshots = new ArrayList<>();

    /**
     * A scheduler of {@code slots} slots of {@code slotContext} cells over {@code fake}, publishing
     * into {@link #snapshots}; {@code key} null for no host prompt cache.
     */
    protected Scheduler scheduler(
            FakeContext fake, int slots, int slotContext, PromptCache cache, PromptCache.Key key) {
        context = fake;
        scheduler = new Scheduler(
                fake, new FakeVocabulary(), slots, slotContext, new ComputeGate(64), snapshots::add, cache, key);
        return scheduler;
    }

    /** A greedy text request. */
    protected static GenerationRequest request(String id, int[] prompt, int maxTokens) {
        return new GenerationRequest(id, prompt, SamplingParams.GREEDY, maxTokens, List.of(), Set.of(), false);
    }

    protected Generation start(GenerationRequest request) {
        Generation g = new Generation(request);
        scheduler.start(g);
        return g;
    }

    protected Generation start(String id, int[] prompt, int maxTokens) {
        return start(request(id, prompt, maxTokens));
    }

    /** Steps until no request is active. */
    protected void finishAll() {
        for (int i = 0; scheduler.anyActive(); i++) {
            assertTrue(i < 1000, "still active after 1000 steps");
            scheduler.step();
        }
    }

    /** The snapshot published last. */
    protected EngineSnapshot snapshot() {
        return snapshots.getLast();
    }

    /** The events a generation has so far. */
    protected static List<GenerationEvent> events(Generation g) throws InterruptedException {
        List<GenerationEvent> events = new ArrayList<>();
        for (GenerationEvent e = g.next(0, TimeUnit.SECONDS); e != null; e = g.next(0, TimeUnit.SECONDS)) {
            events.add(e);
        }
        return events;
    }

    /** How the generation ended, which must be done. */
    protected static GenerationEvent.Done done(List<GenerationEvent> events) {
        return assertInstanceOf(GenerationEvent.Done.class, events.getLast());
    }

    /** Why the generation failed, which it must have. */
    protected static ForgeException failed(List<GenerationEvent> events) {
        return assertInstanceOf(GenerationEvent.Failed.class, events.getLast()).error();
    }
}
