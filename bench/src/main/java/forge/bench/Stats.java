package forge.bench;

import java.util.Arrays;
import java.util.Collection;

/**
 * Summary statistics of a sample (latencies in ms, tokens per second, ...).
 *
 * <p>Percentiles use the <b>nearest-rank</b> method: for {@code 0 < p <= 100} the p-th
 * percentile of {@code n} values sorted ascending is the value at 1-based rank
 * {@code ceil(p / 100 * n)}; {@code p = 0} gives the minimum. It always returns a value that was
 * observed (no interpolation), so a p95 over 30 runs is the 29th smallest, the second largest.
 * This is the method the seed system's benchmark used.
 *
 * @param n    number of values
 * @param p50  median by nearest rank
 * @param p95  95th percentile by nearest rank
 * @param mean arithmetic mean
 * @param min  smallest value
 * @param max  largest value
 */
public record Stats(int n, double p50, double p95, double mean, double min, double max) {

    /** The statistics of an empty sample: every figure is NaN. */
    public static final Stats EMPTY = new Stats(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    /** Summarises {@code values}; an empty collection gives {@link #EMPTY}. */
    public static Stats of(Collection<? extends Number> values) {
        double[] sorted =
                values.stream().mapToDouble(Number::doubleValue).sorted().toArray();
        if (sorted.length == 0) {
            return EMPTY;
        }
        double sum = 0;
        for (double v : sorted) {
            sum += v;
        }
        return new Stats(
                sorted.length,
                percentile(sorted, 50),
                percentile(sorted, 95),
                sum / sorted.length,
                sorted[0],
                sorted[sorted.length - 1]);
    }

    /**
     * The nearest-rank {@code p}-th percentile of values already sorted ascending.
     *
     * @throws IllegalArgumentException if {@code sorted} is empty or {@code p} is outside [0, 100]
     */
    public static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("percentile of an empty sample");
        }
        if (!(p >= 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile must be in [0, 100]: " + p);
        }
        // Rank 1..n; p = 0 would give rank 0, which by convention is the smallest value.
        // p * n before the division keeps whole ranks exact (0.95 * 20 is not exactly 19 in binary).
        int rank = (int) Math.ceil(p * sorted.length / 100.0);
        return sorted[Math.max(rank, 1) - 1];
    }

    /** Convenience for tests and callers holding an unsorted array. */
    public static double percentileOf(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return percentile(sorted, p);
    }
}
