package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.sampler.SamplingParams;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Benchmark-only synthetic acceptance, as llama-server's {@code --spec-synth-len} / {@code --spec-synth-rates}. */
class SyntheticAcceptanceTest {

    @Test
    void aMeanLengthBecomesGeometricRatesThatYieldIt() {
        for (double length : new double[] {1, 1.5, 2, 3, 4.5, 5}) {
            SyntheticAcceptance s = SyntheticAcceptance.length(length, 4);
            assertEquals(length, s.meanLength(), 1e-6, "length " + length);
            double[] r = s.rates();
            for (int i = 1; i < r.length; i++) {
                assertEquals(r[0] * r[i - 1], r[i], 1e-9, "p^(i+1)");
            }
        }
        assertArrayEquals(
                new double[] {1, 1, 1}, SyntheticAcceptance.length(4, 3).rates());
        assertThrows(IllegalArgumentException.class, () -> SyntheticAcceptance.length(5.5, 4));
        assertThrows(IllegalArgumentException.class, () -> SyntheticAcceptance.length(0.5, 4));
        assertThrows(IllegalArgumentException.class, () -> SyntheticAcceptance.length(2, 0));
    }

    @Test
    void ratesMustBeOnePerPositionWithinZeroAndOneAndNotIncreasing() {
        assertEquals(
                2.5, SyntheticAcceptance.rates(new double[] {0.8, 0.5, 0.2}, 3).meanLength(), 1e-9);
        assertThrows(IllegalArgumentException.class, () -> SyntheticAcceptance.rates(new double[] {0.8, 0.5}, 3));
        assertThrows(IllegalArgumentException.class, () -> SyntheticAcceptance.rates(new double[] {0.5, 0.8}, 2));
        assertThrows(IllegalArgumentException.class, () -> SyntheticAcceptance.rates(new double[] {1.2}, 1));
        assertThrows(IllegalArgumentException.class, () -> SyntheticAcceptance.rates(new double[] {Double.NaN}, 1));
    }

    @Test
    void eachPositionIsAcceptedAtItsUnconditionalRateAndAnEndOfGenerationTokenNever() {
        SyntheticAcceptance s = SyntheticAcceptance.rates(new double[] {0.8, 0.4}, 2);
        GenerationRequest r = new GenerationRequest(
                "r", new int[] {1}, SamplingParams.builder().seed(9).build(), 4, List.of(), Set.of(), false);
        Random random = s.random(r);
        FakeVocabulary vocab = new FakeVocabulary();
        int n = 100_000;
        int[] accepted = new int[2];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < 2 && s.accepts(random, j, vocab, FakeVocabulary.A); j++) {
                accepted[j]++;
            }
        }
        assertEquals(0.8, accepted[0] / (double) n, 0.01);
        assertEquals(0.4, accepted[1] / (double) n, 0.01);
        assertFalse(s.accepts(random, 0, vocab, FakeVocabulary.EOS));
        assertFalse(s.accepts(random, 2, vocab, FakeVocabulary.A), "beyond the rates: rejected");
        assertNull(SyntheticAcceptance.OFF.random(r));
        // Seeded: the same draws for the same seed.
        assertEquals(s.random(r).nextLong(), s.random(r).nextLong());
        assertTrue(SyntheticAcceptance.length(3, 4).enabled());
    }
}
