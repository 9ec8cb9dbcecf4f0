package forge.api.sampler;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How to choose each next token. Backends turn this into a native sampler chain: logit bias, then
 * the {@link #samplers() steps} in their order (llama-server's default: penalties, dry,
 * top_n_sigma, top_k, typ_p, top_p, min_p, xtc, temperature), the grammar after the leading
 * penalties and dry steps, then a seeded draw, mirostat's, or the greedy choice when
 * {@code temperature} is 0. A stage at its neutral value (top_k 0, top_p 1, dry_multiplier 0, ...)
 * is left out of the chain.
 *
 * <p>Eighteen fields, most of them left at their defaults: build one with {@link #builder()} (from
 * {@link #DEFAULTS}) or change a few of another's with {@link #toBuilder()}.
 *
 * @param temperature      0 picks the most likely token; higher flattens the distribution
 * @param topK             keep the k most likely tokens; 0 keeps all
 * @param topP             keep the smallest set whose probability reaches p; 1 keeps all
 * @param minP             drop tokens below p times the top token's probability; 0 keeps all
 * @param repeatPenalty    divide the logits of recent tokens by this; 1 is off
 * @param repeatLastN      how many recent tokens the penalties look at
 * @param frequencyPenalty subtract this times a token's recent count (OpenAI's frequency_penalty)
 * @param presencePenalty  subtract this from every recent token (OpenAI's presence_penalty)
 * @param seed             the random seed; -1 draws one
 * @param logitBias        added to a token's logit before sampling; {@code -Infinity} bans it
 * @param grammar          a GBNF grammar whose {@code root} rule the output must match; empty for none
 * @param grammarTriggers  when not empty, the grammar is lazy: output is free until one of these
 *                         texts appears (a tool call opening, say), then constrained from it on
 * @param typicalP         locally typical sampling (llama-server's {@code typical_p}); 1 is off
 * @param topNSigma        keep tokens within this many standard deviations of the top logit; 0 or less is off
 * @param xtc              exclude top choices; {@link Xtc#OFF} by default
 * @param dry              "don't repeat yourself"; {@link Dry#OFF} by default
 * @param mirostat         mirostat instead of the seeded draw; {@link Mirostat#OFF} by default
 * @param samplers         the chain's steps in order: built-in stages and plugin stages
 */
public record SamplingParams(
        float temperature,
        int topK,
        float topP,
        float minP,
        float repeatPenalty,
        int repeatLastN,
        float frequencyPenalty,
        float presencePenalty,
        long seed,
        Map<Integer, Float> logitBias,
        String grammar,
        List<String> grammarTriggers,
        float typicalP,
        float topNSigma,
        Xtc xtc,
        Dry dry,
        Mirostat mirostat,
        List<SamplerStep> samplers) {

    /**
     * llama-server's defaults: temperature 0.8, top-k 40, top-p 0.95, min-p 0.05, repeat penalty off
     * over the last 64 tokens, a random seed, no grammar, and every later stage off in its default order.
     */
    public static final SamplingParams DEFAULTS = new SamplingParams(
            0.8f,
            40,
            0.95f,
            0.05f,
            1f,
            64,
            0f,
            0f,
            -1,
            Map.of(),
            "",
            List.of(),
            1f,
            -1f,
            Xtc.OFF,
            Dry.OFF,
            Mirostat.OFF,
            BuiltinStage.DEFAULT_ORDER);

    /** Always the most likely token: {@link #DEFAULTS} with temperature 0 and top-k, top-p, min-p off. */
    public static final SamplingParams GREEDY =
            DEFAULTS.toBuilder().temperature(0f).topK(0).topP(1f).minP(0f).build();

    /**
     * XTC, "exclude top choices": with {@code probability}, drop every token above
     * {@code threshold} but the least likely of them.
     *
     * @param probability 0 to 1; 0 is off (llama-server's {@code xtc_probability})
     * @param threshold   0 to 1; above 0.5 is off ({@code xtc_threshold})
     */
    public record Xtc(float probability, float threshold) {
        /** llama-server's defaults: off, threshold 0.1. */
        public static final Xtc OFF = new Xtc(0f, 0.1f);

        public Xtc {
            check(probability >= 0 && probability <= 1, "xtc_probability", probability);
            check(threshold >= 0 && threshold <= 1, "xtc_threshold", threshold);
        }

        /** Whether the stage would change anything. */
        public boolean enabled() {
            return probability > 0 && threshold <= 0.5f;
        }
    }

    /**
     * DRY: penalise a token that would extend a repetition beyond {@code allowedLength} tokens by
     * {@code multiplier * base ^ (length - allowedLength)}.
     *
     * @param multiplier       0 is off ({@code dry_multiplier})
     * @param base             at least 1 ({@code dry_base})
     * @param allowedLength    repetitions this long go unpunished ({@code dry_allowed_length})
     * @param penaltyLastN     how many tokens to scan; -1 the whole context, 0 off ({@code dry_penalty_last_n})
     * @param sequenceBreakers texts that end a repetition ({@code dry_sequence_breakers})
     */
    public record Dry(
            float multiplier, float base, int allowedLength, int penaltyLastN, List<String> sequenceBreakers) {
        /** llama-server's defaults: off, base 1.75, allowed length 2, the last 64 tokens, breakers newline, colon, quote, asterisk. */
        public static final Dry OFF = new Dry(0f, 1.75f, 2, 64, List.of("\n", ":", "\"", "*"));

        public Dry {
            check(multiplier >= 0 && Float.isFinite(multiplier), "dry_multiplier", multiplier);
            check(base >= 1 && Float.isFinite(base), "dry_base", base);
            check(allowedLength >= 0, "dry_allowed_length", allowedLength);
            check(penaltyLastN >= -1, "dry_penalty_last_n", penaltyLastN);
            sequenceBreakers = List.copyOf(sequenceBreakers);
        }

        /** Whether the stage would change anything. */
        public boolean enabled() {
            return multiplier > 0 && penaltyLastN != 0;
        }
    }

    /**
     * Mirostat: a draw that steers the output's surprise toward {@code tau}.
     *
     * @param version 0 off, 1 mirostat, 2 mirostat 2.0 ({@code mirostat})
     * @param tau     the target entropy ({@code mirostat_tau})
     * @param eta     the learning rate ({@code mirostat_eta})
     */
    public record Mirostat(int version, float tau, float eta) {
        /** llama-server's defaults: off, tau 5, eta 0.1. */
        public static final Mirostat OFF = new Mirostat(0, 5f, 0.1f);

        public Mirostat {
            check(version >= 0 && version <= 2, "mirostat", version);
            check(Float.isFinite(tau), "mirostat_tau", tau);
            check(Float.isFinite(eta), "mirostat_eta", eta);
        }
    }

    public SamplingParams {
        check(temperature >= 0 && Float.isFinite(temperature), "temperature", temperature);
        check(topK >= 0, "top_k", topK);
        check(topP > 0 && topP <= 1, "top_p", topP);
        check(minP >= 0 && minP <= 1, "min_p", minP);
        check(repeatPenalty > 0 && Float.isFinite(repeatPenalty), "repeat_penalty", repeatPenalty);
        check(repeatLastN >= -1, "repeat_last_n", repeatLastN);
        check(frequencyPenalty >= -2 && frequencyPenalty <= 2, "frequency_penalty", frequencyPenalty);
        check(presencePenalty >= -2 && presencePenalty <= 2, "presence_penalty", presencePenalty);
        logitBias = Map.copyOf(logitBias);
        Objects.requireNonNull(grammar, "grammar");
        grammarTriggers = List.copyOf(grammarTriggers);
        if (!grammarTriggers.isEmpty() && grammar.isEmpty()) {
            throw new IllegalArgumentException("grammar triggers need a grammar");
        }
        check(typicalP > 0 && Float.isFinite(typicalP), "typical_p", typicalP);
        check(Float.isFinite(topNSigma), "top_n_sigma", topNSigma);
        Objects.requireNonNull(xtc, "xtc");
        Objects.requireNonNull(dry, "dry");
        Objects.requireNonNull(mirostat, "mirostat");
        samplers = List.copyOf(samplers);
    }

    /** The plugin stages among {@link #samplers()}, in order. */
    public List<PluginStage> pluginStages() {
        return samplers.stream()
                .filter(s -> s instanceof PluginStage)
                .map(s -> (PluginStage) s)
                .toList();
    }

    /**
     * The mirostat version the draw uses: {@link #mirostat()}'s, or 2 when the steps name
     * {@link BuiltinStage#MIROSTAT} and the field says nothing; 0 for the seeded draw.
     */
    public int mirostatVersion() {
        if (mirostat.version() != 0) {
            return mirostat.version();
        }
        return samplers.contains(BuiltinStage.MIROSTAT) ? 2 : 0;
    }

    private static void check(boolean ok, String name, Object value) {
        if (!ok) {
            throw new IllegalArgumentException(name + " is out of range: " + value);
        }
    }

    /** True when the choice is deterministic (temperature 0). */
    public boolean greedy() {
        return temperature == 0f;
    }

    /**
     * A builder that starts from {@link #DEFAULTS}, llama-server's defaults.
     *
     * {@snippet :
     * SamplingParams p = SamplingParams.builder().temperature(0.2f).seed(42).build();
     * }
     */
    public static Builder builder() {
        return DEFAULTS.toBuilder();
    }

    /** A builder that starts from these parameters: to change a few and keep the rest. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * Builds {@link SamplingParams} one field at a time; {@link #build()} validates them as the
     * record's constructor does. A builder is not thread-safe; each {@code build()} makes a new,
     * immutable record, so a builder can make several.
     */
    public static final class Builder {
        private float temperature;
        private int topK;
        private float topP;
        private float minP;
        private float repeatPenalty;
        private int repeatLastN;
        private float frequencyPenalty;
        private float presencePenalty;
        private long seed;
        private Map<Integer, Float> logitBias;
        private String grammar;
        private List<String> grammarTriggers;
        private float typicalP;
        private float topNSigma;
        private Xtc xtc;
        private Dry dry;
        private Mirostat mirostat;
        private List<SamplerStep> samplers;

        private Builder(SamplingParams p) {
            temperature = p.temperature;
            topK = p.topK;
            topP = p.topP;
            minP = p.minP;
            repeatPenalty = p.repeatPenalty;
            repeatLastN = p.repeatLastN;
            frequencyPenalty = p.frequencyPenalty;
            presencePenalty = p.presencePenalty;
            seed = p.seed;
            logitBias = p.logitBias;
            grammar = p.grammar;
            grammarTriggers = p.grammarTriggers;
            typicalP = p.typicalP;
            topNSigma = p.topNSigma;
            xtc = p.xtc;
            dry = p.dry;
            mirostat = p.mirostat;
            samplers = p.samplers;
        }

        /** See {@link SamplingParams#typicalP()}. */
        public Builder typicalP(float typicalP) {
            this.typicalP = typicalP;
            return this;
        }

        /** See {@link SamplingParams#topNSigma()}. */
        public Builder topNSigma(float topNSigma) {
            this.topNSigma = topNSigma;
            return this;
        }

        /** See {@link SamplingParams#xtc()}. */
        public Builder xtc(Xtc xtc) {
            this.xtc = Objects.requireNonNull(xtc, "xtc");
            return this;
        }

        /** See {@link SamplingParams#dry()}. */
        public Builder dry(Dry dry) {
            this.dry = Objects.requireNonNull(dry, "dry");
            return this;
        }

        /** See {@link SamplingParams#mirostat()}. */
        public Builder mirostat(Mirostat mirostat) {
            this.mirostat = Objects.requireNonNull(mirostat, "mirostat");
            return this;
        }

        /** See {@link SamplingParams#samplers()}. */
        public Builder samplers(List<SamplerStep> samplers) {
            this.samplers = Objects.requireNonNull(samplers, "samplers");
            return this;
        }

        /** See {@link SamplingParams#temperature()}. */
        public Builder temperature(float temperature) {
            this.temperature = temperature;
            return this;
        }

        /** See {@link SamplingParams#topK()}. */
        public Builder topK(int topK) {
            this.topK = topK;
            return this;
        }

        /** See {@link SamplingParams#topP()}. */
        public Builder topP(float topP) {
            this.topP = topP;
            return this;
        }

        /** See {@link SamplingParams#minP()}. */
        public Builder minP(float minP) {
            this.minP = minP;
            return this;
        }

        /** See {@link SamplingParams#repeatPenalty()}. */
        public Builder repeatPenalty(float repeatPenalty) {
            this.repeatPenalty = repeatPenalty;
            return this;
        }

        /** See {@link SamplingParams#repeatLastN()}. */
        public Builder repeatLastN(int repeatLastN) {
            this.repeatLastN = repeatLastN;
            return this;
        }

        /** See {@link SamplingParams#frequencyPenalty()}. */
        public Builder frequencyPenalty(float frequencyPenalty) {
            this.frequencyPenalty = frequencyPenalty;
            return this;
        }

        /** See {@link SamplingParams#presencePenalty()}. */
        public Builder presencePenalty(float presencePenalty) {
            this.presencePenalty = presencePenalty;
            return this;
        }

        /** See {@link SamplingParams#seed()}. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** See {@link SamplingParams#logitBias()}; replaces any bias set before. */
        public Builder logitBias(Map<Integer, Float> logitBias) {
            this.logitBias = Objects.requireNonNull(logitBias, "logitBias");
            return this;
        }

        /**
         * A grammar that constrains the output from its first token; clears any triggers a
         * {@link #lazyGrammar lazy grammar} had. An empty grammar is none.
         */
        public Builder grammar(String grammar) {
            this.grammar = Objects.requireNonNull(grammar, "grammar");
            this.grammarTriggers = List.of();
            return this;
        }

        /** A lazy grammar: free output until one of {@code triggers} appears, then constrained. */
        public Builder lazyGrammar(String grammar, List<String> triggers) {
            this.grammar = Objects.requireNonNull(grammar, "grammar");
            this.grammarTriggers = Objects.requireNonNull(triggers, "triggers");
            return this;
        }

        /**
         * The parameters set so far.
         *
         * @throws IllegalArgumentException naming the first field out of range, as the record's constructor
         */
        public SamplingParams build() {
            return new SamplingParams(
                    temperature,
                    topK,
                    topP,
                    minP,
                    repeatPenalty,
                    repeatLastN,
                    frequencyPenalty,
                    presencePenalty,
                    seed,
                    logitBias,
                    grammar,
                    grammarTriggers,
                    typicalP,
                    topNSigma,
                    xtc,
                    dry,
                    mirostat,
                    samplers);
        }
    }
}
