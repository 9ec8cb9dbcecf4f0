package forge.api.template;

import java.util.List;
import java.util.Objects;

/**
 * One message of a conversation. Content given as a list of text parts is joined to one string
 * in {@link #content}; {@link #wire} keeps the message as the client sent it.
 *
 * @param role             who speaks
 * @param content          the text; empty when an assistant message only calls tools
 * @param name             the optional participant or tool name; empty for none
 * @param toolCalls        the tool calls of an assistant message
 * @param toolCallId       the call a tool message answers; empty for other roles
 * @param reasoningContent an assistant's earlier reasoning, for templates that replay it; empty for none
 * @param wire             the message object exactly as the client sent it, as JSON text; empty when
 *                         it did not come from a client as one JSON object. Why: a model's own
 *                         Jinja template is rendered as transformers renders it, and transformers
 *                         hands each message to the template as sent (a list of content parts,
 *                         {@code content: null}, keys no API field names). The family templates
 *                         read the fields above and ignore this one.
 */
public record ChatMessage(
        Role role,
        String content,
        String name,
        List<ToolCall> toolCalls,
        String toolCallId,
        String reasoningContent,
        String wire) {
    public ChatMessage {
        Objects.requireNonNull(role);
        Objects.requireNonNull(content);
        Objects.requireNonNull(name);
        toolCalls = List.copyOf(toolCalls);
        Objects.requireNonNull(toolCallId);
        Objects.requireNonNull(reasoningContent);
        Objects.requireNonNull(wire);
    }

    /** A message made here rather than sent by a client: no {@link #wire} form. */
    public ChatMessage(
            Role role,
            String content,
            String name,
            List<ToolCall> toolCalls,
            String toolCallId,
            String reasoningContent) {
        this(role, content, name, toolCalls, toolCallId, reasoningContent, "");
    }

    public static ChatMessage of(Role role, String content) {
        return new ChatMessage(role, content, "", List.of(), "", "");
    }

    /** An assistant message that calls {@code calls} after {@code content} (empty for none). */
    public static ChatMessage calling(String content, List<ToolCall> calls) {
        return calling(content, calls, "");
    }

    /**
     * An assistant message that calls {@code calls} after {@code content}, having reasoned
     * {@code reasoning} first (each empty for none).
     */
    public static ChatMessage calling(String content, List<ToolCall> calls, String reasoning) {
        return new ChatMessage(Role.ASSISTANT, content, "", calls, "", reasoning);
    }

    /** A tool message: {@code content} answers the call {@code toolCallId}. */
    public static ChatMessage toolResult(String toolCallId, String content) {
        return new ChatMessage(Role.TOOL, content, "", List.of(), toolCallId, "");
    }
}
