package forge.runtime.catalog;

import forge.api.backend.MediaTokens;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import java.util.Objects;

/**
 * A conversation rendered by the model's chat template and tokenized, not yet submitted: what a
 * route needs to know before it asks for generation (how many tokens the prompt takes, so that it
 * can fit {@code max_tokens} to the slot or answer {@code count_tokens}).
 *
 * <p>A conversation with images holds its prompt's media chunks (native memory): the route closes
 * it once it has submitted every choice (each submitted request holds a reference of its own), or
 * when it submits none.
 *
 * @param prompt   the conversation
 * @param tokens   the rendered prompt's tokens: with images, {@link MediaTokens#tokens()} (each
 *                 image as a run of placeholders, one per embedding: what usage and the context
 *                 check count)
 * @param template the template that rendered it, whose parser reads the answer: the model's, or
 *                 one a route wrapped around it for this request (the generic tool-call format)
 * @param media    the prompt split into text and media chunks; null without images
 */
public record PreparedChat(ChatPrompt prompt, int[] tokens, ChatTemplate template, MediaTokens media)
        implements AutoCloseable {
    public PreparedChat {
        Objects.requireNonNull(prompt);
        Objects.requireNonNull(tokens);
        Objects.requireNonNull(template);
    }

    /** A conversation without images. */
    public PreparedChat(ChatPrompt prompt, int[] tokens, ChatTemplate template) {
        this(prompt, tokens, template, null);
    }

    /** How many of the prompt's tokens are media embeddings. */
    public int mediaTokens() {
        return media == null
                ? 0
                : media.media().stream().mapToInt(MediaTokens.Span::length).sum();
    }

    /** Drops this preparation's reference to its media chunks; a text prompt holds none. */
    @Override
    public void close() {
        if (media != null) {
            media.close();
        }
    }
}
