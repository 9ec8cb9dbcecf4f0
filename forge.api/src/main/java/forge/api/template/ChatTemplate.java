package forge.api.template;

import java.util.List;
import java.util.Map;
import java.util.Optional;

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

    /**
     * A GBNF grammar for this format's tool-call syntax, so decoding can be constrained to call
     * tools from the first token ({@code tool_choice: "required"} or a named function).
     *
     * <p>The caller has already defined one GBNF rule per tool for that tool's arguments (a JSON
     * object matching its parameter schema); {@code argumentRules} maps each tool's name to its
     * rule's name. The returned text defines {@code root} (and any rules of its own, prefixed
     * with {@code tc-} to avoid clashes) so that {@code root} matches one call, or one or more
     * calls when {@code parallel}, of the given tools, exactly as this format writes them and as
     * {@link #parser} reads them. Empty when the format has no tool-call syntax.
     */
    default Optional<String> toolCallGrammar(
            List<ToolDefinition> tools, Map<String, String> argumentRules, boolean parallel) {
        return Optional.empty();
    }

    /**
     * The texts that open a tool call in this format (such as {@code <tool_call>}): with
     * {@code tool_choice: "auto"} a lazy grammar engages when the model writes one of them.
     */
    default List<String> toolCallTriggers() {
        return List.of();
    }

    /** Whether the prompt begins with the BOS token as text, so the tokenizer must not add another. */
    default boolean rendersBos() {
        return false;
    }

    /**
     * Why this template can render no conversation at all (a model's own template that does not
     * parse), for listings such as {@code /v1/models}; empty for a usable one. Why it exists: such a
     * model is still served, each of its requests refused with this reason as a 400, rather than
     * failing the model's load and, with it, the server's start.
     */
    default Optional<String> unusable() {
        return Optional.empty();
    }
}
