package forge.runtime.catalog;

import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import java.util.Objects;

/**
 * A conversation rendered by the model's chat template and tokenized, not yet submitted: what a
 * route needs to know before it asks for generation (how many tokens the prompt takes, so that it
 * can fit {@code max_tokens} to the slot or answer {@code count_tokens}).
 *
 * @param prompt   the conversation
 * @param tokens   the rendered prompt's tokens
 * @param template the template that rendered it, whose parser reads the answer: the model's, or
 *                 one a route wrapped around it for this request (the generic tool-call format)
 */
public record PreparedChat(ChatPrompt prompt, int[] tokens, ChatTemplate template) {
    public PreparedChat {
        Objects.requireNonNull(prompt);
        Objects.requireNonNull(tokens);
        Objects.requireNonNull(template);
    }
}
