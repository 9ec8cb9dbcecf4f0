package forge.api.sampler;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How to choose each next token. Backends turn this into a native sampler chain, in llama.cpp's
 * order: logit bias, penalties, grammar, top-k, top-p, min-p, temperature, then a seeded draw (or
 * the greedy choice when {@code temperature} is 0).
 *
 * <p>Twelve fields, most of them left at their defaults: build one with {@link #builder()} (from
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
 */
public record SamplingParams(float temperature, int topK, float topP, float minP, float repeatPenalty,
                             int repeatLastN, float frequencyPenalty, float presencePenalty, long seed,
                             Map<Integer, Float> logitBias, String grammar, List<String> grammarTriggers) {

    /** Always the most likely token. */
    public static final SamplingParams GREEDY = new SamplingParams(0f, 0, 1f, 0f, 1f, 64, 0f, 0f, -1, Map.of(), "", List.of());

    /** llama-server's defaults: temperature 0.8, top-k 40, top-p 0.95, min-p 0.05. */
    public static final SamplingParams DEFAULTS = new SamplingParams(0.8f, 40, 0.95f, 0.05f, 1f, 64, 0f, 0f, -1, Map.of(), "", List.of());

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
            return new SamplingParams(temperature, topK, topP, minP, repeatPenalty, repeatLastN, frequencyPenalty,
                    presencePenalty, seed, logitBias, grammar, grammarTriggers);
        }
    }
}
