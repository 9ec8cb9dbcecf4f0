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
 * @param images              the images of the messages, in the order of their
 *                            {@link ChatImage#MARKER markers} in the messages' text
 */
public record ChatPrompt(
        List<ChatMessage> messages,
        List<ToolDefinition> tools,
        boolean addGenerationPrompt,
        Map<String, Object> options,
        List<ChatImage> images) {
    public ChatPrompt {
        messages = List.copyOf(messages);
        images = List.copyOf(images);
        tools = List.copyOf(tools);
        options = Map.copyOf(Objects.requireNonNull(options));
    }

    /** A conversation without images. */
    public ChatPrompt(
            List<ChatMessage> messages,
            List<ToolDefinition> tools,
            boolean addGenerationPrompt,
            Map<String, Object> options) {
        this(messages, tools, addGenerationPrompt, options, List.of());
    }

    /** This conversation with {@code images}, in the order of their markers. */
    public ChatPrompt withImages(List<ChatImage> images) {
        return new ChatPrompt(messages, tools, addGenerationPrompt, options, images);
    }

    public static ChatPrompt of(List<ChatMessage> messages) {
        return new ChatPrompt(messages, List.of(), true, Map.of());
    }
}
