package forge.api.template;

import java.util.List;
import java.util.Objects;

/**
 * One message of a conversation. Content given as a list of text parts is joined to one string
 * before it gets here.
 *
 * @param role             who speaks
 * @param content          the text; empty when an assistant message only calls tools
 * @param name             the optional participant or tool name; empty for none
 * @param toolCalls        the tool calls of an assistant message
 * @param toolCallId       the call a tool message answers; empty for other roles
 * @param reasoningContent an assistant's earlier reasoning, for templates that replay it; empty for none
 */
public record ChatMessage(Role role, String content, String name, List<ToolCall> toolCalls, String toolCallId,
                          String reasoningContent) {
    public ChatMessage {
        Objects.requireNonNull(role);
        Objects.requireNonNull(content);
        Objects.requireNonNull(name);
        toolCalls = List.copyOf(toolCalls);
        Objects.requireNonNull(toolCallId);
        Objects.requireNonNull(reasoningContent);
    }

    public static ChatMessage of(Role role, String content) {
        return new ChatMessage(role, content, "", List.of(), "", "");
    }
}
