package forge.bench;

/**
 * What one chat completion request measured.
 *
 * @param ok               HTTP 200, no error event, a complete response, and at least one token
 * @param status           the HTTP status (0 when the request failed before a response)
 * @param latencyMs        request sent to the last byte of the response
 * @param ttftMs           request sent to the first non-empty content delta (streaming only; NaN otherwise)
 * @param decodeMs         first content delta to the last one (streaming only; NaN otherwise)
 * @param completionTokens {@code usage.completion_tokens}, or the content chunks when the server sent no usage
 * @param promptTokens     {@code usage.prompt_tokens}, or -1 when the server sent no usage
 * @param contentChunks    stream events with non-empty content (streaming only)
 * @param usageReported    whether the server reported usage
 * @param error            why it failed, or the empty string
 * @param serverDecodeTps  the decode speed the server itself reported ({@code timings.predicted_per_second},
 *                         which llama-server and ForgeLM both send), NaN when it sent none: the engine's
 *                         speed without the client's side of streaming
 */
public record Completion(
        boolean ok,
        int status,
        double latencyMs,
        double ttftMs,
        double decodeMs,
        int completionTokens,
        int promptTokens,
        int contentChunks,
        boolean usageReported,
        String error,
        double serverDecodeTps) {

    /** A request that got no usable response. */
    public static Completion failed(int status, double latencyMs, String error) {
        return new Completion(false, status, latencyMs, Double.NaN, Double.NaN, 0, -1, 0, false, error, Double.NaN);
    }

    /** Completion tokens per second over the whole request (the seed system's {@code completion_tps}). */
    public double completionTps() {
        return latencyMs > 0 ? completionTokens / (latencyMs / 1000.0) : Double.NaN;
    }

    /**
     * Decode tokens per second of a stream: the tokens after the first over the time between the
     * first and last content deltas, so prefill and HTTP setup are left out. NaN when unknown.
     */
    public double decodeTps() {
        if (completionTokens < 2 || !(decodeMs > 0)) {
            return Double.NaN;
        }
        return (completionTokens - 1) / (decodeMs / 1000.0);
    }
}
