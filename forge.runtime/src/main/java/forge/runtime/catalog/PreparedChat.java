package forge.runtime.catalog;

import forge.api.template.ChatPrompt;
import java.util.Objects;

/**
 * A conversation rendered by the model's chat template and tokenized, not yet submitted: what a
 * route needs to know before it asks for generation (how many tokens the prompt takes, so that it
 * can fit {@code max_tokens} to the slot or answer {@code count_tokens}).
 *
 * @param prompt the conversation
 * @param tokens the rendered prompt's tokens
 */
public record PreparedChat(ChatPrompt prompt, int[] tokens) {
    public PreparedChat {
        Objects.requireNonNull(prompt);
        Objects.requireNonNull(tokens);
    }
}
