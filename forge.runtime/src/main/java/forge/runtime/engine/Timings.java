package forge.runtime.engine;

/**
 * What one generation cost, like llama-server's {@code timings}.
 *
 * @param queueMs          waiting for a slot
 * @param promptTokens     tokens in the prompt
 * @param cachedTokens     prompt tokens reused from the KV cache, not recomputed
 * @param promptMs         prefilling the rest of the prompt
 * @param firstTokenMs     from submission to the first generated token
 * @param completionTokens tokens generated
 * @param decodeMs         from the first generated token to the last
 * @param draftTokens      tokens drafted by speculative decoding (llama-server's {@code draft_n})
 * @param draftAccepted    of those, the ones the target model sampled too ({@code draft_n_accepted})
 */
public record Timings(
        double queueMs,
        int promptTokens,
        int cachedTokens,
        double promptMs,
        double firstTokenMs,
        int completionTokens,
        double decodeMs,
        int draftTokens,
        int draftAccepted) {

    /** Prefill speed, prompt tokens computed per second. */
    public double promptTokensPerSecond() {
        int computed = promptTokens - cachedTokens;
        return promptMs > 0 ? computed * 1000.0 / promptMs : 0;
    }

    /** Decode speed after the first token, tokens per second. */
    public double decodeTokensPerSecond() {
        return decodeMs > 0 && completionTokens > 1 ? (completionTokens - 1) * 1000.0 / decodeMs : 0;
    }
}
