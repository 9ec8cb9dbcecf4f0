package forge.template.generic;

import forge.api.TemplateException;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.OutputParser;
import forge.api.template.Role;
import forge.template.mustache.MustacheTemplate;
import forge.template.toolkit.calls.HermesToolCalls;
import forge.template.toolkit.calls.ToolCallSyntax;
import forge.template.toolkit.calls.ToolCallingTemplate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * ChatML: every message as {@code <|im_start|>role\ncontent<|im_end|>\n}, then the opening of
 * the assistant's turn. Tool calls and tool results are rendered as text, since ChatML itself has
 * no convention for them.
 */
final class ChatMlTemplate extends MustacheTemplate implements ToolCallingTemplate {

    /** The generic variant's fallback for a model without a template of its own. */
    static final ChatMlTemplate INSTANCE = new ChatMlTemplate(GenericTemplates.GENERIC);
    /** The {@code chatml} variant, llama-server's name: the same ChatML, under its own name. */
    static final ChatMlTemplate CHATML = new ChatMlTemplate(GenericTemplates.CHATML);

    private ChatMlTemplate(String name) {
        super(name, ChatMlTemplate.class, "generic", "chatml");
    }

    @Override
    public String render(ChatPrompt prompt) {
        if (prompt.messages().isEmpty()) {
            throw new TemplateException("the conversation has no messages");
        }
        List<Map<String, Object>> messages = new ArrayList<>(prompt.messages().size());
        for (ChatMessage m : prompt.messages()) {
            Map<String, Object> view = new HashMap<>();
            // ChatML has no developer role: OpenAI's developer messages are system messages.
            view.put("role", m.role() == Role.DEVELOPER ? "system" : m.role().wire());
            view.put("content", contentOf(m));
            messages.add(view);
        }
        Map<String, Object> scope = new HashMap<>();
        scope.put("messages", messages);
        scope.put("add_generation_prompt", prompt.addGenerationPrompt());
        return renderView(scope);
    }

    private static String contentOf(ChatMessage m) {
        if (m.toolCalls().isEmpty()) {
            return m.content();
        }
        StringBuilder sb = new StringBuilder(m.content());
        for (var call : m.toolCalls()) {
            if (!sb.isEmpty()) {
                sb.append('\n');
            }
            sb.append("<tool_call>\n{\"name\": \"")
                    .append(call.name())
                    .append("\", \"arguments\": ")
                    .append(call.arguments())
                    .append("}\n</tool_call>");
        }
        return sb.toString();
    }

    /** Calls in the Hermes syntax, the convention of ChatML models. */
    @Override
    public ToolCallSyntax toolCallSyntax() {
        return HermesToolCalls.SYNTAX;
    }

    /** Calls parsed only when the request offers tools; otherwise all output is content. */
    @Override
    public OutputParser parser(ChatPrompt prompt) {
        return toolCallSyntax().parserWhenOffered(reasoning(prompt), prompt.tools());
    }

    @Override
    public List<String> endOfTurn() {
        return List.of("<|im_end|>");
    }
}
