package forge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class StatsTest {

    @Test
    void nearestRankOnOneToTen() {
        double[] v = IntStream.rangeClosed(1, 10).asDoubleStream().toArray();
        assertEquals(1, Stats.percentile(v, 0));
        assertEquals(1, Stats.percentile(v, 10));
        assertEquals(2, Stats.percentile(v, 11)); // ceil(1.1) = rank 2
        assertEquals(5, Stats.percentile(v, 50));
        assertEquals(10, Stats.percentile(v, 95)); // ceil(9.5) = rank 10
        assertEquals(10, Stats.percentile(v, 100));
    }

    @Test
    void p95OfThirtyRunsIsTheSecondLargest() {
        // The seed workload measures 30 runs: rank ceil(28.5) = 29.
        List<Double> v = new ArrayList<>();
        for (int i = 1; i <= 30; i++) {
            v.add(i * 10.0);
        }
        Collections.shuffle(v, new java.util.Random(42));
        Stats s = Stats.of(v);
        assertEquals(30, s.n());
        assertEquals(290.0, s.p95());
        assertEquals(150.0, s.p50()); // rank 15
        assertEquals(155.0, s.mean());
        assertEquals(10.0, s.min());
        assertEquals(300.0, s.max());
    }

    @Test
    void wholeRanksAreExactDespiteBinaryFractions() {
        // 0.95 * 20 is 19.000000000000004 in doubles; the rank must still be 19, not 20.
        double[] v = IntStream.rangeClosed(1, 20).asDoubleStream().toArray();
        assertEquals(19, Stats.percentile(v, 95));
        double[] hundred = IntStream.rangeClosed(1, 100).asDoubleStream().toArray();
        assertEquals(95, Stats.percentile(hundred, 95));
        assertEquals(50, Stats.percentile(hundred, 50));
    }

    @Test
    void unsortedInputAndSingleValue() {
        assertEquals(7, Stats.percentileOf(new double[] {9, 1, 7, 3, 5}, 80)); // rank 4 of 1 3 5 7 9
        Stats one = Stats.of(List.of(42));
        assertEquals(42, one.p50());
        assertEquals(42, one.p95());
        assertEquals(42, one.mean());
    }

    @Test
    void emptyAndBadArguments() {
        assertSame(Stats.EMPTY, Stats.of(List.<Double>of()));
        assertEquals(Double.NaN, Stats.EMPTY.p95());
        assertThrows(IllegalArgumentException.class, () -> Stats.percentile(new double[0], 50));
        assertThrows(IllegalArgumentException.class, () -> Stats.percentile(new double[] {1}, 101));
        assertThrows(IllegalArgumentException.class, () -> Stats.percentile(new double[] {1}, Double.NaN));
    }
}
