package forge.runtime.engine;

import forge.api.backend.Vocabulary;
import java.util.Arrays;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * For benchmarks only, as llama-server's {@code --spec-synth-len} / {@code --spec-synth-rates}: draft
 * tokens are accepted at random, at set rates, instead of where the target samples them, so that the
 * speed at an acceptance rate can be measured on any model (random weights included). The output is
 * not the model's: a token accepted this way stands whatever the target sampled (the sampler chain
 * has seen the sampled one), so it must never be on outside a benchmark.
 *
 * <p>{@code rates[i]} is the probability that draft position {@code i} is accepted, unconditionally
 * (non-increasing); position {@code i} is accepted with probability {@code rates[i] / rates[i-1]}
 * once those before it were. A drafted end-of-generation token is never accepted this way (it would
 * end the benchmark's request early). Each request draws from its own generator, seeded by its seed.
 */
public final class SyntheticAcceptance {

    /** Real verification. */
    public static final SyntheticAcceptance OFF = new SyntheticAcceptance(new double[0]);

    private final double[] rates;
    /** {@code conditional[i]}: the chance position {@code i} is accepted once the ones before it were. */
    private final double[] conditional;

    private SyntheticAcceptance(double[] rates) {
        this.rates = rates;
        this.conditional = new double[rates.length];
        double previous = 1;
        for (int i = 0; i < rates.length; i++) {
            conditional[i] = previous > 0 ? rates[i] / previous : 0;
            previous = rates[i];
        }
    }

    /**
     * Per-position rates, as {@code --spec-synth-rates}: one per draft position up to {@code draftMax},
     * each 0 to 1 and none above the one before.
     */
    public static SyntheticAcceptance rates(double[] rates, int draftMax) {
        if (draftMax <= 0) {
            throw new IllegalArgumentException("synthetic acceptance needs drafts: the draft maximum is " + draftMax);
        }
        if (rates.length != draftMax) {
            throw new IllegalArgumentException(
                    "synthetic acceptance rates must contain " + draftMax + " values, got " + rates.length);
        }
        for (int i = 0; i < rates.length; i++) {
            if (!(rates[i] >= 0 && rates[i] <= 1)) {
                throw new IllegalArgumentException("synthetic acceptance rates must be within [0, 1]: " + rates[i]);
            }
            if (i > 0 && rates[i] > rates[i - 1]) {
                throw new IllegalArgumentException("synthetic acceptance rates must not increase");
            }
        }
        return new SyntheticAcceptance(rates.clone());
    }

    /**
     * Rates {@code p, p², p³...} whose mean accepted length, counting the target's own token, is
     * {@code length} (1 to {@code draftMax + 1}), as {@code --spec-synth-len}: llama.cpp's bisection.
     */
    public static SyntheticAcceptance length(double length, int draftMax) {
        if (draftMax <= 0) {
            throw new IllegalArgumentException("synthetic acceptance needs drafts: the draft maximum is " + draftMax);
        }
        double most = draftMax + 1.0;
        if (!(length >= 1 && length <= most)) {
            throw new IllegalArgumentException(
                    "synthetic acceptance length must be within [1, " + (int) most + "]: " + length);
        }
        double p = 0;
        if (length == most) {
            p = 1;
        } else if (length > 1) {
            double low = 0;
            double high = 1;
            for (int i = 0; i < 32; i++) {
                double mid = (low + high) / 2;
                double sum = 0;
                double term = mid;
                for (int j = 0; j < draftMax; j++) {
                    sum += term;
                    term *= mid;
                }
                if (sum < length - 1) {
                    low = mid;
                } else {
                    high = mid;
                }
            }
            p = (low + high) / 2;
        }
        double[] rates = new double[draftMax];
        double rate = p;
        for (int i = 0; i < draftMax; i++) {
            rates[i] = rate;
            rate *= p;
        }
        return new SyntheticAcceptance(rates);
    }

    /** Whether draft tokens are accepted at random. */
    public boolean enabled() {
        return rates.length > 0;
    }

    /** The unconditional rate of each draft position. */
    public double[] rates() {
        return rates.clone();
    }

    /** The mean tokens a step yields, counting the target's own: 1 plus the rates. */
    public double meanLength() {
        return 1 + Arrays.stream(rates).sum();
    }

    /** The generator of one request (seeded by its seed, or at random), or null when this is off. */
    Random random(GenerationRequest request) {
        if (!enabled()) {
            return null;
        }
        long seed = request.sampling().seed();
        return seed == -1 ? new Random(new SplittableRandom().nextLong()) : new Random(seed);
    }

    /** Whether draft position {@code j}, token {@code token}, is accepted (the ones before it were). */
    boolean accepts(Random random, int j, Vocabulary vocab, int token) {
        return j < conditional.length && random.nextDouble() < conditional[j] && !vocab.isEndOfGeneration(token);
    }
}
