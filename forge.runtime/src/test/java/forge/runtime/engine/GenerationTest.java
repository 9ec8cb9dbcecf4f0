package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.sampler.SamplingParams;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** The hand-off between the engine thread and a request's thread. */
class GenerationTest {

    private static Generation generation() {
        return new Generation(
                new GenerationRequest("g", new int[] {1, 2}, SamplingParams.GREEDY, 4, List.of(), Set.of(), false));
    }

    private static GenerationEvent.Text text(String s) {
        return new GenerationEvent.Text(s, 1, List.of());
    }

    private static GenerationEvent.Done done() {
        return new GenerationEvent.Done(FinishReason.STOP, new Timings(0, 2, 0, 0, 0, 1, 0, 0, 0));
    }

    @Test
    void eventsComeInOrderAndAnEmptyWaitTimesOut() throws Exception {
        Generation g = generation();
        assertNull(g.next(0, TimeUnit.MILLISECONDS));
        long t0 = System.nanoTime();
        assertNull(g.next(30, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(30), "waited the whole timeout");
        g.emit(text("a"));
        g.emit(text("b"));
        g.emit(done());
        assertEquals("a", ((GenerationEvent.Text) g.next()).text());
        assertEquals("b", ((GenerationEvent.Text) g.next(1, TimeUnit.SECONDS)).text());
        assertInstanceOf(GenerationEvent.Done.class, g.next());
    }

    /**
     * Starts a consumer thread that calls {@code next(10 s)} once, and returns once it is parked in
     * that call: the event the test emits next then reaches a waiting consumer, whatever the machine's speed.
     */
    private static CompletableFuture<GenerationEvent> waitingConsumer(Generation g, long[] wokenAfter)
            throws InterruptedException {
        var got = new CompletableFuture<GenerationEvent>();
        Thread consumer = Thread.ofPlatform().start(() -> {
            try {
                long t0 = System.nanoTime();
                GenerationEvent e = g.next(10, TimeUnit.SECONDS);
                wokenAfter[0] = System.nanoTime() - t0;
                got.complete(e);
            } catch (Throwable e) {
                got.completeExceptionally(e);
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (LockSupport.getBlocker(consumer) != g) {
            assertTrue(System.nanoTime() < deadline, "the consumer never waited: " + consumer.getState());
            Thread.onSpinWait();
        }
        return got;
    }

    @Test
    void aWaitingConsumerIsWokenByEachEvent() throws Exception {
        Generation g = generation();
        var got = waitingConsumer(g, new long[1]);
        g.emit(text("x"));
        assertEquals("x", ((GenerationEvent.Text) got.get(2, TimeUnit.SECONDS)).text());
    }

    @Test
    void aConsumerOfTheWholeAnswerIsWokenOnlyWhenItEnds() throws Exception {
        Generation g = generation();
        g.deferText();
        long[] wokenAfter = new long[1];
        var got = waitingConsumer(g, wokenAfter);
        g.emit(text("x"));
        // Proves that the text does not wake it: a short, bounded look for something that must not happen.
        Thread.sleep(300);
        assertTrue(!got.isDone(), "a text event does not wake it");
        g.emit(done());
        GenerationEvent first = got.get(2, TimeUnit.SECONDS);
        assertEquals("x", ((GenerationEvent.Text) first).text(), "the text queued meanwhile comes first");
        assertTrue(wokenAfter[0] >= TimeUnit.MILLISECONDS.toNanos(300), "woken by Done, not by the text");
        assertInstanceOf(GenerationEvent.Done.class, g.next(0, TimeUnit.SECONDS));
    }

    @Test
    void noEventIsLostBetweenAProducerAndAWaitingConsumer() throws Exception {
        Generation g = generation();
        int n = 200_000;
        Thread producer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < n; i++) {
                g.emit(text(Integer.toString(i)));
            }
            g.emit(done());
        });
        for (int i = 0; i < n; i++) {
            GenerationEvent e = g.next(5, TimeUnit.SECONDS);
            assertEquals(Integer.toString(i), ((GenerationEvent.Text) e).text());
        }
        assertInstanceOf(GenerationEvent.Done.class, g.next(5, TimeUnit.SECONDS));
        producer.join();
    }

    @Test
    void anInterruptedWaitSaysSo() {
        Generation g = generation();
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, g::next);
        assertTrue(!Thread.currentThread().isInterrupted(), "the interrupt was consumed");
    }
}
