package forge.api.template;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A conversation to render.
 *
 * @param messages            the messages, in order
 * @param tools               the functions the model may call
 * @param addGenerationPrompt end with the opening of the assistant's turn
 * @param options             template options ({@code chat_template_kwargs}), such as
 *                            {@code enable_thinking} or {@code date_string}, as JSON values
 */
public record ChatPrompt(
        List<ChatMessage> messages,
        List<ToolDefinition> tools,
        boolean addGenerationPrompt,
        Map<String, Object> options) {
    public ChatPrompt {
        messages = List.copyOf(messages);
        tools = List.copyOf(tools);
        options = Map.copyOf(Objects.requireNonNull(options));
    }

    public static ChatPrompt of(List<ChatMessage> messages) {
        return new ChatPrompt(messages, List.of(), true, Map.of());
    }
}
