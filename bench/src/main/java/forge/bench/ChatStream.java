package forge.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Accumulates one streamed chat completion ({@code chat.completion.chunk} events) as it arrives:
 * when the first content delta came, how many content chunks, and the token counts of the final
 * usage chunk ({@code stream_options.include_usage}), which both ForgeLM and llama-server send
 * as a chunk with an empty {@code choices} array before {@code [DONE]}.
 *
 * <p>Times are {@link System#nanoTime()} readings taken by the caller when each event's last
 * line arrived. Not thread-safe: one per request.
 */
public final class ChatStream {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final long startNanos;
    private long firstContentNanos = -1;
    private long lastContentNanos = -1;
    private int contentChunks;
    private int completionTokens = -1;
    private int promptTokens = -1;
    private boolean done;
    private String error = "";
    private double serverDecodeTps = Double.NaN;

    /** @param startNanos when the request was sent */
    public ChatStream(long startNanos) {
        this.startNanos = startNanos;
    }

    /** One event's data, received at {@code nanos}. */
    public void event(String data, long nanos) {
        if (data.equals("[DONE]")) {
            done = true;
            return;
        }
        JsonNode chunk;
        try {
            chunk = JSON.readTree(data);
        } catch (JsonProcessingException e) {
            error = "unparseable event: " + abbreviate(data);
            return;
        }
        JsonNode err = chunk.get("error");
        if (err != null && !err.isNull()) {
            error = err.path("message").asText(err.toString());
            return;
        }
        for (JsonNode choice : chunk.path("choices")) {
            JsonNode content = choice.path("delta").path("content");
            if (content.isTextual() && !content.asText().isEmpty()) {
                if (firstContentNanos < 0) {
                    firstContentNanos = nanos;
                }
                lastContentNanos = nanos;
                contentChunks++;
            }
        }
        JsonNode usage = chunk.get("usage");
        if (usage != null && usage.isObject()) {
            completionTokens = usage.path("completion_tokens").asInt(-1);
            promptTokens = usage.path("prompt_tokens").asInt(-1);
        }
        JsonNode timings = chunk.path("timings").path("predicted_per_second");
        if (timings.isNumber()) {
            serverDecodeTps = timings.asDouble();
        }
    }

    /** Whether {@code [DONE]} arrived. */
    public boolean done() {
        return done;
    }

    /** The measurement, once the response has ended at {@code endNanos} with HTTP {@code status}. */
    public Completion result(int status, long endNanos) {
        double latencyMs = ms(endNanos - startNanos);
        boolean usageReported = completionTokens >= 0;
        int tokens = usageReported ? completionTokens : contentChunks;
        String why = error;
        if (why.isEmpty() && status != 200) {
            why = "HTTP " + status;
        } else if (why.isEmpty() && !done) {
            why = "stream ended without [DONE]";
        } else if (why.isEmpty() && tokens <= 0) {
            why = "no tokens generated";
        }
        double ttft = firstContentNanos < 0 ? Double.NaN : ms(firstContentNanos - startNanos);
        double decode = firstContentNanos < 0 ? Double.NaN : ms(lastContentNanos - firstContentNanos);
        return new Completion(
                why.isEmpty(),
                status,
                latencyMs,
                ttft,
                decode,
                tokens,
                promptTokens,
                contentChunks,
                usageReported,
                why,
                serverDecodeTps);
    }

    /**
     * The measurement of a non-streamed response body (a {@code chat.completion} object).
     *
     * @param latencyMs request sent to the last byte of the body
     */
    public static Completion fromBody(int status, double latencyMs, String body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            return Completion.failed(status, latencyMs, "unparseable body: " + abbreviate(body));
        }
        if (status != 200 || root.has("error")) {
            String message = root.path("error").path("message").asText("HTTP " + status);
            return Completion.failed(status, latencyMs, message);
        }
        JsonNode usage = root.path("usage");
        int completion = usage.path("completion_tokens").asInt(-1);
        int prompt = usage.path("prompt_tokens").asInt(-1);
        if (completion <= 0) {
            return Completion.failed(status, latencyMs, "no usage.completion_tokens in the response");
        }
        JsonNode tps = root.path("timings").path("predicted_per_second");
        return new Completion(
                true,
                status,
                latencyMs,
                Double.NaN,
                Double.NaN,
                completion,
                prompt,
                0,
                true,
                "",
                tps.isNumber() ? tps.asDouble() : Double.NaN);
    }

    static double ms(long nanos) {
        return nanos / 1_000_000.0;
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }
}
