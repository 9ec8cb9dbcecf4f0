package forge.http.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.ForgeException;
import forge.api.SamplingException;
import forge.runtime.engine.EngineException;
import forge.runtime.engine.Timings;

/**
 * The pieces of OpenAI's wire format that its chat and completions routes share: response
 * envelopes, usage, llama-server's timings, and the error a failure becomes.
 */
final class OpenAiWire {

    private OpenAiWire() {
    }

    /** An engine's refusal in OpenAI's terms. */
    static ApiError toApiError(EngineException e) {
        return switch (e.code()) {
            case CONTEXT_LENGTH_EXCEEDED -> new ApiError(400, "invalid_request_error", "context_length_exceeded", "messages", e.getMessage());
            case INVALID_LOGIT_BIAS -> new ApiError(400, "invalid_request_error", "invalid_value", "logit_bias", e.getMessage());
            case QUEUE_FULL -> new ApiError(503, "server_error", "queue_full", null, e.getMessage() + "; retry later");
            case UNAVAILABLE -> new ApiError(503, "server_error", "unavailable", null, e.getMessage());
        };
    }

    /** A generation's failure in OpenAI's terms: the request's own fault (400) or the server's (500). */
    static ApiError failure(ForgeException e) {
        if (e instanceof EngineException ee) {
            return toApiError(ee);
        }
        if (e instanceof SamplingException) {
            // The request's grammar or logit biases allowed no token: its fault, and only its own.
            return new ApiError(400, "invalid_request_error", "no_allowed_token", null, e.getMessage());
        }
        return new ApiError(500, "server_error", "generation_failed", null, "generation failed: " + e.getMessage());
    }

    static ObjectNode envelope(String id, long created, String model, String object) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("id", id);
        n.put("object", object);
        n.put("created", created);
        n.put("model", model);
        n.put("system_fingerprint", "forgelm");
        return n;
    }

    /** The envelope of a streamed chat chunk. */
    static ObjectNode chunk(String id, long created, String model) {
        return envelope(id, created, model, "chat.completion.chunk");
    }

    static ObjectNode usage(int promptTokens, int completionTokens, int cachedTokens) {
        ObjectNode u = Json.MAPPER.createObjectNode();
        u.put("prompt_tokens", promptTokens);
        u.put("completion_tokens", completionTokens);
        u.put("total_tokens", promptTokens + completionTokens);
        u.putObject("prompt_tokens_details").put("cached_tokens", cachedTokens);
        return u;
    }

    /** Like llama-server's {@code timings}, plus queue time and time to first token. */
    static ObjectNode timings(Timings t) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("queue_ms", t.queueMs());
        n.put("cache_n", t.cachedTokens());
        n.put("prompt_n", t.promptTokens() - t.cachedTokens());
        n.put("prompt_ms", t.promptMs());
        n.put("prompt_per_second", t.promptTokensPerSecond());
        n.put("ttft_ms", t.firstTokenMs());
        n.put("predicted_n", t.completionTokens());
        n.put("predicted_ms", t.decodeMs());
        n.put("predicted_per_second", t.decodeTokensPerSecond());
        return n;
    }
}
