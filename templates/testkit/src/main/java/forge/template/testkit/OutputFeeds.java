package forge.template.testkit;

import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.OutputParser;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Feeding model output to a parser the way a stream would, and the history that renders a parsed call back. */
public final class OutputFeeds {
    private OutputFeeds() {}

    /** All deltas of {@code text} fed one character (code point) at a time, as the worst tokenizer would, then {@code finish()}. */
    public static List<ChatDelta> feedCharByChar(OutputParser parser, String text) {
        List<ChatDelta> out = new ArrayList<>();
        text.codePoints().forEach(cp -> out.addAll(parser.feed(Character.toString(cp))));
        out.addAll(parser.finish());
        return out;
    }

    /**
     * The history after a call: the user's {@code q}, then the assistant's turn of {@code call}
     * alone after its {@code reasoning}, the request offering {@code tools}; no generation prompt.
     * A template renders it back as the model wrote the call.
     */
    public static ChatPrompt afterCall(ToolCall call, String reasoning, List<ToolDefinition> tools) {
        return new ChatPrompt(
                List.of(
                        ChatMessage.of(Role.USER, "q"),
                        new ChatMessage(Role.ASSISTANT, "", "", List.of(call), "", reasoning)),
                tools,
                false,
                Map.of());
    }
}
