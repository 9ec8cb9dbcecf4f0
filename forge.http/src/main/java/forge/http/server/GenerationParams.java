package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.sampler.SamplingParams;
import forge.runtime.engine.Speculation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What OpenAI's chat and completions bodies say alike about generating: sampling, how many tokens
 * and choices, stops, streaming. Read once here for both routes (and for any route that speaks in
 * these names), so that the two never drift apart.
 *
 * @param sampling     sampling parameters (no grammar: the route's structured output adds one)
 * @param maxTokens    the most tokens to generate; -1 for no limit but the context
 * @param stops        stop strings
 * @param n            choices, each its own sequence
 * @param stream       answer with server-sent events
 * @param includeUsage send a usage chunk at the end of a stream
 * @param ignoreEos    generate past end-of-generation tokens
 * @param speculation  n-gram speculative decoding for this request, from llama-server's
 *                     {@code speculative.*} fields; null (the engine's) when it names none
 * @param lora         llama-server's per-request LoRA adapter list ({@link Lora})
 */
record GenerationParams(
        SamplingParams sampling,
        int maxTokens,
        List<String> stops,
        int n,
        boolean stream,
        boolean includeUsage,
        boolean ignoreEos,
        Speculation speculation,
        Lora lora) {

    /** Each choice takes a slot (or a place in the queue): more than this is refused rather than queued. */
    static final int MAX_CHOICES = 16;
    /** Stop strings per request, and the length of each: every one is matched against every token. */
    static final int MAX_STOPS = 16;

    static final int MAX_STOP_LENGTH = 1000;

    /**
     * Reads the generation parameters of {@code body}, the sampler chain's with them
     * ({@link SamplingChain}: {@code samplers} may name the plugin stages of the body's context).
     *
     * @param defaultMaxTokens {@code max_tokens} when the body gives none (-1: up to the context)
     */
    static GenerationParams parse(Fields body, int defaultMaxTokens) {
        int n = Params.integer(body, "n", 1, 1, MAX_CHOICES);
        int maxTokens = Params.integer(
                body,
                "max_completion_tokens",
                Params.integer(body, "max_tokens", defaultMaxTokens, 1, Integer.MAX_VALUE),
                1,
                Integer.MAX_VALUE);
        float temperature = Params.number(body, "temperature", SamplingParams.DEFAULTS.temperature(), 0, 2);
        float topP = Params.number(body, "top_p", SamplingParams.DEFAULTS.topP(), 0, 1);
        if (topP == 0) {
            topP = Float.MIN_VALUE; // OpenAI allows 0: only the top token survives
        }
        int topK = Params.integer(body, "top_k", SamplingParams.DEFAULTS.topK(), 0, Integer.MAX_VALUE);
        float minP = Params.number(body, "min_p", SamplingParams.DEFAULTS.minP(), 0, 1);
        float presence = Params.number(body, "presence_penalty", 0, -2, 2);
        float frequency = Params.number(body, "frequency_penalty", 0, -2, 2);
        float repeat = Params.number(body, "repeat_penalty", 1, 0.01f, 10);
        int repeatLastN = Params.integer(body, "repeat_last_n", 64, -1, Integer.MAX_VALUE);
        long seed = Params.int64(body, "seed", -1);
        Map<Integer, Float> bias = logitBias(body.get("logit_bias"));
        SamplingParams sampling = SamplingChain.read(
                        body,
                        SamplingParams.builder()
                                .temperature(temperature)
                                .topK(topK)
                                .topP(topP)
                                .minP(minP)
                                .repeatPenalty(repeat)
                                .repeatLastN(repeatLastN)
                                .frequencyPenalty(frequency)
                                .presencePenalty(presence)
                                .seed(seed)
                                .logitBias(bias))
                .build();

        boolean stream = Params.bool(body, "stream", false);
        boolean includeUsage = false;
        JsonNode so = body.get("stream_options");
        if (so != null && !so.isNull()) {
            if (!so.isObject()) {
                throw ApiError.badRequest("stream_options", "'stream_options' must be an object");
            }
            includeUsage = Params.bool(so, "include_usage", "stream_options", false);
        }
        return new GenerationParams(
                sampling,
                maxTokens,
                stops(body.get("stop"), "stop"),
                n,
                stream,
                includeUsage,
                Params.bool(body, "ignore_eos", false),
                speculation(body),
                Lora.read(body));
    }

    /**
     * The generation of a door that asks for one choice (Anthropic's messages, OpenAI's responses):
     * no usage chunk (its stream ends with its own usage event), no generating past end of generation;
     * llama-server's per-request {@code speculative.*} fields are read from {@code body} as chat
     * completions reads them.
     *
     * @param lora the body's {@code lora}, read by the door where its other fields are ({@link Lora#read})
     */
    static GenerationParams oneChoice(
            JsonNode body, SamplingParams sampling, int maxTokens, List<String> stops, boolean stream, Lora lora) {
        return new GenerationParams(sampling, maxTokens, stops, 1, stream, false, false, speculation(body), lora);
    }

    /**
     * llama-server's per-request {@code speculative.n_max} (0 turns drafting off), {@code speculative.n_min}
     * and {@code speculative.ngram_size_n}: a body that names any of them drafts with those, llama.cpp's
     * defaults for the others; one that names none speculates as its engine does.
     */
    static Speculation speculation(JsonNode body) {
        if (!body.has("speculative.n_max")
                && !body.has("speculative.n_min")
                && !body.has("speculative.ngram_size_n")
                && !body.has("speculative.p_min")) {
            return null;
        }
        int limit = Speculation.LIMIT;
        int max = Params.integer(body, "speculative.n_max", Speculation.DEFAULT_DRAFT_MAX, 0, limit);
        int min = Params.integer(body, "speculative.n_min", 0, 0, max);
        int ngram = Params.integer(body, "speculative.ngram_size_n", Speculation.DEFAULT_NGRAM, 1, limit);
        float pMin = Params.number(body, "speculative.p_min", 0f, 0f, 1f);
        return new Speculation(ngram, max, min, pMin, false);
    }

    /** OpenAI's {@code logit_bias}: token ids (as strings) to biases from -100 (banned) to 100. */
    static Map<Integer, Float> logitBias(JsonNode node) {
        if (node == null || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw ApiError.badRequest("logit_bias", "'logit_bias' must be an object mapping token ids to numbers");
        }
        Map<Integer, Float> bias = new HashMap<>();
        var it = node.properties().iterator();
        while (it.hasNext()) {
            var e = it.next();
            int token;
            try {
                token = Integer.parseInt(e.getKey());
            } catch (NumberFormatException ex) {
                throw ApiError.badRequest("logit_bias", "logit_bias key '" + e.getKey() + "' is not a token id");
            }
            if (!e.getValue().isNumber()
                    || e.getValue().asDouble() < -100
                    || e.getValue().asDouble() > 100) {
                throw ApiError.badRequest("logit_bias", "logit_bias values must be numbers from -100 to 100");
            }
            // OpenAI: -100 bans the token.
            bias.put(
                    token,
                    e.getValue().asDouble() <= -100
                            ? Float.NEGATIVE_INFINITY
                            : (float) e.getValue().asDouble());
        }
        return bias;
    }

    /**
     * Stop strings: a string or an array of strings at {@code param}; empty strings are dropped. At
     * most {@link #MAX_STOPS}, each at most {@link #MAX_STOP_LENGTH} characters: every one is
     * matched against the output after each token, so their number and length bound that work.
     */
    static List<String> stops(JsonNode node, String param) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (node.isTextual()) {
            return node.asText().isEmpty() ? List.of() : List.of(checkedStop(node.asText(), param));
        }
        if (node.isArray()) {
            if (node.size() > MAX_STOPS) {
                throw ApiError.badRequest(
                        param,
                        "'" + param + "' has " + node.size() + " entries; at most " + MAX_STOPS + " are allowed");
            }
            List<String> stops = new ArrayList<>();
            for (JsonNode s : node) {
                if (!s.isTextual()) {
                    throw ApiError.badRequest(param, "'" + param + "' must be a string or an array of strings");
                }
                if (!s.asText().isEmpty()) {
                    stops.add(checkedStop(s.asText(), param));
                }
            }
            return stops;
        }
        throw ApiError.badRequest(param, "'" + param + "' must be a string or an array of strings");
    }

    private static String checkedStop(String stop, String param) {
        if (stop.length() > MAX_STOP_LENGTH) {
            throw ApiError.badRequest(
                    param,
                    "a '" + param + "' string is " + stop.length() + " characters long; at most " + MAX_STOP_LENGTH
                            + " are allowed");
        }
        return stop;
    }
}
