package forge.api.template;

import java.util.List;

/**
 * A chat template for one model: renders a conversation to prompt text and parses the model's
 * output back. Thread-safe: one instance serves every request to the model.
 */
public interface ChatTemplate {

    /** The variant's name, such as {@code qwen2.5}. */
    String name();

    /**
     * Renders the conversation as the official template would.
     *
     * @throws forge.api.TemplateException with the template's own reason when the official
     *                                     template would raise an error for this conversation
     */
    String render(ChatPrompt prompt);

    /**
     * A new parser for one response. The default passes all text through as content.
     */
    default OutputParser parser(ChatPrompt prompt) {
        return OutputParser.PLAIN.get();
    }

    /**
     * Texts that end the assistant's turn in this format (such as {@code <|im_end|>}). The engine
     * stops at them even when the model's EOS token differs.
     */
    default List<String> endOfTurn() {
        return List.of();
    }

    /** Whether the prompt begins with the BOS token as text, so the tokenizer must not add another. */
    default boolean rendersBos() {
        return false;
    }
}
