package forge.api.sampler;

import java.util.List;
import java.util.Map;

/**
 * How to choose each next token. Backends turn this into a native sampler chain, in llama.cpp's
 * order: logit bias, penalties, grammar, top-k, top-p, min-p, temperature, then a seeded draw (or
 * the greedy choice when {@code temperature} is 0).
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
        java.util.Objects.requireNonNull(grammar, "grammar");
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

    public SamplingParams withTemperature(float t) {
        return new SamplingParams(t, topK, topP, minP, repeatPenalty, repeatLastN, frequencyPenalty, presencePenalty, seed, logitBias, grammar, grammarTriggers);
    }

    public SamplingParams withSeed(long s) {
        return new SamplingParams(temperature, topK, topP, minP, repeatPenalty, repeatLastN, frequencyPenalty, presencePenalty, s, logitBias, grammar, grammarTriggers);
    }

    public SamplingParams withLogitBias(Map<Integer, Float> bias) {
        return new SamplingParams(temperature, topK, topP, minP, repeatPenalty, repeatLastN, frequencyPenalty, presencePenalty, seed, bias, grammar, grammarTriggers);
    }

    /** A lazy grammar: free output until a trigger text appears, then constrained. */
    public SamplingParams withLazyGrammar(String g, List<String> triggers) {
        return new SamplingParams(temperature, topK, topP, minP, repeatPenalty, repeatLastN, frequencyPenalty, presencePenalty, seed, logitBias, g, triggers);
    }

    public SamplingParams withGrammar(String g) {
        return new SamplingParams(temperature, topK, topP, minP, repeatPenalty, repeatLastN, frequencyPenalty, presencePenalty, seed, logitBias, g, List.of());
    }
}
