package forge.template.toolkit.calls;

import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.OutputParser;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.lib.text.PythonJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Tools for a model whose chat template has no tool-call syntax (llama-server's built-in formats,
 * a model's own template that never writes calls): the generic tool-call format, wrapped around
 * that template. The tools are described in the system turn, and calls are written in the
 * Hermes syntax ({@link HermesToolCalls}: {@code <tool_call>\n{"name": ..., "arguments": ...}\n</tool_call>}),
 * which instruction-tuned models of many families follow when shown it. Its grammar forces a call
 * ({@code tool_choice} required or named), its trigger opens the lazy grammar in auto mode, and
 * its parser reads the calls back. The template then renders what it can render: roles and text.
 *
 * <p>The system turn the format adds, before the conversation's own system text:
 * <pre>{@code
 * # Tools
 *
 * You may call one or more functions to assist with the user query.
 *
 * You are provided with function signatures within <tools></tools> XML tags:
 * <tools>
 * {"type": "function", "function": {"name": ..., "description": ..., "parameters": ...}}
 * </tools>
 *
 * For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
 * <tool_call>
 * {"name": <function-name>, "arguments": <args-json-object>}
 * </tool_call>
 * }</pre>
 * Earlier calls in the conversation are written back into their assistant turns in that syntax,
 * and each tool result is a user turn {@code <tool_response>\nRESULT\n</tool_response>}, since
 * such templates know no tool role. Without tools, the wrapped template renders and parses as it
 * always does.
 */
public final class GenericToolCalls implements ChatTemplate {

    /** The instructions before the tools, as Hermes-trained models were shown them. */
    static final String PREAMBLE = "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
            + "You are provided with function signatures within <tools></tools> XML tags:\n<tools>";

    /** The instructions after them: the call's syntax. */
    static final String HOW_TO_CALL = "\n</tools>\n\nFor each function call, return a json object with function name"
            + " and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
            + "{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>";

    private final ChatTemplate plain;

    private GenericToolCalls(ChatTemplate plain) {
        this.plain = plain;
    }

    /** {@code plain} with the generic tool-call format; a template with a syntax of its own is returned as it is. */
    public static ChatTemplate around(ChatTemplate plain) {
        return plain.toolCallTriggers().isEmpty() && !(plain instanceof GenericToolCalls)
                ? new GenericToolCalls(plain)
                : plain;
    }

    @Override
    public String name() {
        return plain.name();
    }

    @Override
    public String render(ChatPrompt prompt) {
        return plain.render(rewrite(prompt));
    }

    /** The conversation as the wrapped template can render it: tools in the system turn, calls and results as text. */
    static ChatPrompt rewrite(ChatPrompt prompt) {
        if (prompt.tools().isEmpty()) {
            return prompt;
        }
        StringBuilder tools = new StringBuilder(PREAMBLE);
        for (ToolDefinition t : prompt.tools()) {
            Map<String, Object> fn = new LinkedHashMap<>();
            fn.put("name", t.name());
            fn.put("description", t.description());
            fn.put("parameters", t.parameters().isEmpty() ? Map.of("type", "object") : t.parameters());
            Map<String, Object> tool = new LinkedHashMap<>();
            tool.put("type", "function");
            tool.put("function", fn);
            tools.append('\n').append(PythonJson.dumps(tool));
        }
        tools.append(HOW_TO_CALL);
        List<ChatMessage> messages = new ArrayList<>();
        List<ChatMessage> given = prompt.messages();
        int first = 0;
        String system = tools.toString();
        if (!given.isEmpty() && given.getFirst().role() == Role.SYSTEM) {
            system = given.getFirst().content() + "\n\n" + system;
            first = 1;
        }
        messages.add(ChatMessage.of(Role.SYSTEM, system));
        for (ChatMessage m : given.subList(first, given.size())) {
            messages.add(
                    switch (m.role()) {
                        case ASSISTANT -> m.toolCalls().isEmpty() ? m : assistant(m);
                        case TOOL ->
                            ChatMessage.of(Role.USER, "<tool_response>\n" + m.content() + "\n</tool_response>");
                        default -> m;
                    });
        }
        return new ChatPrompt(messages, List.of(), prompt.addGenerationPrompt(), prompt.options());
    }

    /** An assistant turn that called tools, its calls written as the model writes them. */
    private static ChatMessage assistant(ChatMessage m) {
        StringBuilder text = new StringBuilder(m.content());
        for (ToolCall call : m.toolCalls()) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("name", call.name());
            json.put("arguments", PythonJson.arguments(call));
            if (!text.isEmpty()) {
                text.append('\n');
            }
            text.append(HermesToolCalls.OPEN)
                    .append('\n')
                    .append(PythonJson.dumps(json))
                    .append('\n')
                    .append(HermesToolCalls.CLOSE);
        }
        return new ChatMessage(Role.ASSISTANT, text.toString(), m.name(), List.of(), "", m.reasoningContent());
    }

    /** The calls when the request offers tools; otherwise the wrapped template's own parser. */
    @Override
    public OutputParser parser(ChatPrompt prompt) {
        return prompt.tools().isEmpty()
                ? plain.parser(prompt)
                : HermesToolCalls.SYNTAX.parser(Reasoning.NONE, prompt.tools());
    }

    @Override
    public List<String> endOfTurn() {
        return plain.endOfTurn();
    }

    @Override
    public Optional<String> toolCallGrammar(
            List<ToolDefinition> tools, Map<String, String> argumentRules, boolean parallel) {
        return HermesToolCalls.SYNTAX.grammar(tools, argumentRules, parallel);
    }

    @Override
    public List<String> toolCallTriggers() {
        return HermesToolCalls.SYNTAX.triggers();
    }

    @Override
    public boolean rendersBos() {
        return plain.rendersBos();
    }

    @Override
    public Optional<String> unusable() {
        return plain.unusable();
    }
}
