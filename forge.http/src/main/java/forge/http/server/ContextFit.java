package forge.http.server;

/**
 * How many tokens a request may generate, given its prompt and the slot it will run in: the
 * context policy of every generating route, decided here before anything is submitted.
 *
 * <p>A prompt that does not fit the slot is left to the engine, which refuses it with
 * {@code context_length_exceeded} before generating anything. A prompt that fits, with a
 * {@code max_tokens} beyond the room left, generates until the slot is full and finishes with
 * {@code length}, as llama-server does (editors send a large fixed {@code max_tokens}, such as
 * OpenCode's 32000, whatever the model's context); under {@code --strict} the request keeps its
 * {@code max_tokens} and the engine refuses it, as before.
 *
 * @param maxTokens the limit to submit: the request's, or the room left in the slot
 * @param capped    whether the request asked for more than the room left and was given less
 */
record ContextFit(int maxTokens, boolean capped) {

    /**
     * The limit for a prompt of {@code promptTokens} in a slot of {@code slotContext} tokens.
     *
     * @param requested the request's {@code max_tokens}; -1 when it named none (the room left)
     * @param strict    keep a {@code max_tokens} beyond the room, for the engine to refuse
     */
    static ContextFit of(int promptTokens, int requested, int slotContext, boolean strict) {
        int room = slotContext - promptTokens;
        if (room <= 0) {
            return new ContextFit(requested, false); // the prompt alone does not fit: the engine says so
        }
        if (requested < 0) {
            return new ContextFit(room, false);
        }
        if (requested > room && !strict) {
            return new ContextFit(room, true);
        }
        return new ContextFit(requested, false);
    }

    /** The response header that names the limit a request ran with. */
    static final String HEADER = "X-Forge-Max-Tokens";
}
