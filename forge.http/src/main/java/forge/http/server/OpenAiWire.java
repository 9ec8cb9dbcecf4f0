package forge.http.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.runtime.engine.Timings;
import java.io.IOException;
import org.eclipse.jetty.server.Response;

/**
 * The pieces of OpenAI's wire format that its chat and completions routes share: response
 * envelopes, usage and llama-server's timings.
 */
final class OpenAiWire {

    private OpenAiWire() {}

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

    /**
     * The last chunk of a stream that asked for usage ({@code stream_options.include_usage}):
     * {@code envelope} with no choices and the run's usage.
     */
    static void sendUsage(Response response, ObjectNode envelope, Run.Usage u) throws IOException {
        envelope.putArray("choices");
        envelope.set("usage", usage(u.promptTokens(), u.completionTokens(), u.cachedTokens()));
        SseWriter.send(response, envelope);
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
        if (t.draftTokens() > 0) {
            // llama-server's names, present (as there) only when the request drafted
            n.put("draft_n", t.draftTokens());
            n.put("draft_n_accepted", t.draftAccepted());
        }
        return n;
    }
}
