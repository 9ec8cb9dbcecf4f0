package forge.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InterleaveTest {

    static final Target A = new Target("forge", URI.create("http://127.0.0.1:1"), "m");
    static final Target B = new Target("peer", URI.create("http://127.0.0.1:2"), "m");

    static Completion ok(double ms) {
        return new Completion(true, 200, ms, Double.NaN, Double.NaN, 8, 10, 0, true, "", Double.NaN);
    }

    @Test
    void orderAlternates() {
        assertArrayEquals(new int[] {0, 1}, Interleave.order(0, 2));
        assertArrayEquals(new int[] {1, 0}, Interleave.order(1, 2));
        assertArrayEquals(new int[] {0, 1}, Interleave.order(2, 2));
        assertArrayEquals(new int[] {0}, Interleave.order(1, 1));
    }

    @Test
    void sequentialInterleavesRequestByRequestAndDropsWarmup() {
        List<String> calls = new ArrayList<>();
        List<Integer> progress = new ArrayList<>();
        var results = Interleave.sequential(
                List.of(A, B),
                2,
                3,
                (t, step) -> {
                    calls.add(t.name() + step);
                    return ok(step);
                },
                (i, of, row) -> progress.add(i));
        assertEquals(
                List.of("forge0", "peer0", "peer1", "forge1", "forge2", "peer2", "peer3", "forge3", "forge4", "peer4"),
                calls);
        assertEquals(
                List.of(2.0, 3.0, 4.0),
                results.get(0).stream().map(Completion::latencyMs).toList());
        assertEquals(3, results.get(1).size());
        assertEquals(List.of(-2, -1, 0, 1, 2), progress);
    }

    @Test
    void roundsRunClientsConcurrentlyAndServersOneAtATime() throws InterruptedException {
        AtomicInteger inFlight = new AtomicInteger();
        List<Integer> peaks = Collections.synchronizedList(new ArrayList<>());
        List<String> servers = Collections.synchronizedList(new ArrayList<>());
        var results = Interleave.rounds(
                List.of(A, B),
                1,
                2,
                4,
                (t, round, client) -> {
                    servers.add(t.name());
                    peaks.add(inFlight.incrementAndGet());
                    try {
                        Thread.sleep(30);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    inFlight.decrementAndGet();
                    return ok(30);
                },
                Interleave.StepListener.none());
        assertEquals(2, results.get(0).size());
        assertEquals(4, results.get(0).getFirst().requests().size());
        // never more than one server's clients at a time, and all four of a round together
        assertTrue(peaks.stream().allMatch(p -> p <= 4), peaks.toString());
        assertTrue(peaks.contains(4), peaks.toString());
        // round 0 forge then peer, round 1 peer then forge, ...
        assertEquals(
                List.of("forge", "peer", "peer", "forge", "forge", "peer"),
                List.of(
                        servers.get(0),
                        servers.get(4),
                        servers.get(8),
                        servers.get(12),
                        servers.get(16),
                        servers.get(20)));
        Interleave.Round r = results.get(0).getFirst();
        assertTrue(r.wallMs() >= 30, "wall " + r.wallMs());
        assertEquals(32 / (r.wallMs() / 1000.0), r.aggregateTps(), 1e-6);
        assertEquals(
                64 / ((results.get(0).get(0).wallMs() + results.get(0).get(1).wallMs()) / 1000.0),
                LoadGenerator.aggregateTps(results.get(0)),
                1e-6);
    }
}
