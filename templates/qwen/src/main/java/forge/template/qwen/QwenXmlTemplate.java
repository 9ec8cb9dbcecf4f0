package forge.template.qwen;

import forge.api.TemplateException;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.lib.text.PythonJson;
import forge.lib.text.PythonText;
import forge.lib.text.PythonValues;
import forge.template.mustache.MustacheTemplate;
import forge.template.toolkit.TemplateCaps;
import forge.template.toolkit.calls.QwenXmlToolCalls;
import forge.template.toolkit.calls.Reasoning;
import forge.template.toolkit.calls.ToolCallSyntax;
import forge.template.toolkit.calls.ToolCallingTemplate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * Qwen 3.5 and Qwen3-Coder: ChatML turns with tool calls in XML ({@code <function=NAME>} and
 * {@code <parameter=ARG>} blocks inside {@code <tool_call>}). Qwen 3.5 offers tools as JSON lines,
 * trims every turn's text, opens {@code <think>} in its generation prompt and replays reasoning on
 * every assistant turn after the last user query; Qwen3-Coder describes tools in XML and has no
 * reasoning.
 */
final class QwenXmlTemplate extends MustacheTemplate implements ToolCallingTemplate {

    static final String CODER_DEFAULT_SYSTEM =
            "You are Qwen, a helpful AI assistant that can interact with a computer to solve tasks.";

    private final boolean coder;

    /** The official templates' capabilities (checked against the golden corpus): Qwen 3.5 takes text parts, Qwen3-Coder prints content as a string. */
    static TemplateCaps caps(String variant) {
        return new TemplateCaps(variant.equals(QwenTemplates.QWEN3_CODER), false, true);
    }

    QwenXmlTemplate(String name) {
        super(name, QwenXmlTemplate.class, "qwen", name);
        this.coder = name.equals(QwenTemplates.QWEN3_CODER);
    }

    @Override
    public String render(ChatPrompt prompt) {
        return coder ? renderCoder(prompt) : render35(prompt);
    }

    private String render35(ChatPrompt prompt) {
        List<ChatMessage> messages = caps(name()).fitted(prompt.messages());
        if (messages.isEmpty()) {
            throw new TemplateException("No messages provided.");
        }
        Map<String, Object> scope = new HashMap<>();
        boolean firstIsSystem = QwenTurns.isSystem(messages.getFirst());
        String system = firstIsSystem ? PythonText.strip(messages.getFirst().content()) : "";
        scope.put("hasTools", !prompt.tools().isEmpty());
        scope.put("toolJson", QwenTurns.toolJson(prompt));
        scope.put("systemTail", system.isEmpty() ? "" : "\n\n" + system);
        scope.put("hasSystem", firstIsSystem);
        scope.put("system", system);
        int lastQuery = -1;
        for (int i = messages.size() - 1; i >= 0; i--) {
            ChatMessage m = messages.get(i);
            String c = PythonText.strip(m.content());
            if (m.role() == Role.USER && !(c.startsWith("<tool_response>") && c.endsWith("</tool_response>"))) {
                lastQuery = i;
                break;
            }
        }
        if (lastQuery < 0) {
            throw new TemplateException("No user query found in messages.");
        }
        List<Map<String, Object>> turns = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage m = messages.get(i);
            String content = PythonText.strip(m.content());
            Map<String, Object> turn = new HashMap<>();
            switch (m.role()) {
                case SYSTEM, DEVELOPER -> {
                    if (i != 0) {
                        throw new TemplateException("System message must be at the beginning.");
                    }
                    continue;
                }
                case USER -> {
                    turn.put("user", true);
                    turn.put("content", content);
                }
                case ASSISTANT -> {
                    String reasoning = m.reasoningContent();
                    if (reasoning.isEmpty()) {
                        QwenTurns.Think split = QwenTurns.Think.split(content);
                        reasoning = split.reasoning();
                        content = split.content();
                    }
                    turn.put("assistant", true);
                    turn.put("thinks", i > lastQuery);
                    turn.put("reasoning", PythonText.strip(reasoning));
                    turn.put("content", content);
                    boolean afterContent = !PythonText.strip(content).isEmpty();
                    turn.put("calls", calls(m.toolCalls(), j -> j > 0 ? "\n" : afterContent ? "\n\n" : ""));
                }
                case TOOL -> QwenTurns.toolResponse(turn, messages, i, content, false);
            }
            turns.add(turn);
        }
        scope.put("turns", turns);
        scope.put("generationPrompt", prompt.addGenerationPrompt());
        scope.put(
                "generationTail",
                Boolean.FALSE.equals(prompt.options().get("enable_thinking"))
                        ? "<think>\n\n</think>\n\n"
                        : "<think>\n");
        return renderView(scope);
    }

    private String renderCoder(ChatPrompt prompt) {
        List<ChatMessage> messages = caps(name()).fittedMessages(prompt);
        Map<String, Object> scope = new HashMap<>();
        boolean firstIsSystem = QwenTurns.isSystem(messages.getFirst());
        boolean hasTools = !prompt.tools().isEmpty();
        scope.put("systemTurn", firstIsSystem || hasTools);
        scope.put("system", firstIsSystem ? messages.getFirst().content() : CODER_DEFAULT_SYSTEM);
        scope.put("hasTools", hasTools);
        scope.put(
                "tools", prompt.tools().stream().map(QwenXmlTemplate::coderTool).toList());
        List<ChatMessage> loop = firstIsSystem ? messages.subList(1, messages.size()) : messages;
        List<Map<String, Object>> turns = new ArrayList<>();
        for (int i = 0; i < loop.size(); i++) {
            ChatMessage m = loop.get(i);
            Map<String, Object> turn = new HashMap<>();
            if (m.role() == Role.ASSISTANT && !m.toolCalls().isEmpty()) {
                String trimmed = PythonText.strip(m.content());
                turn.put("assistant", true);
                turn.put("content", trimmed.isEmpty() ? "" : "\n" + trimmed + "\n");
                turn.put("calls", calls(m.toolCalls(), j -> ""));
            } else if (m.role() == Role.TOOL) {
                QwenTurns.toolResponse(turn, loop, i, m.content(), false);
            } else {
                turn.put("plain", true);
                turn.put("role", QwenTurns.isSystem(m) ? "system" : m.role().wire());
                turn.put("content", m.content());
            }
            turns.add(turn);
        }
        scope.put("turns", turns);
        scope.put("generationPrompt", prompt.addGenerationPrompt());
        scope.put("nl", "\n");
        return renderView(scope);
    }

    /** A tool as Qwen3-Coder's system turn describes it, each optional line ready with its leading newline. */
    private static Map<String, Object> coderTool(ToolDefinition t) {
        Map<String, Object> v = new HashMap<>();
        v.put("name", t.name());
        v.put(
                "description",
                t.description().isEmpty()
                        ? ""
                        : "\n<description>" + PythonText.strip(t.description()) + "</description>");
        List<Map<String, Object>> params = new ArrayList<>();
        if (t.parameters().get("properties") instanceof Map<?, ?> props) {
            for (var e : props.entrySet()) {
                Map<String, Object> p = new HashMap<>();
                p.put("name", String.valueOf(e.getKey()));
                StringBuilder fields = new StringBuilder();
                if (e.getValue() instanceof Map<?, ?> f) {
                    if (f.containsKey("type")) {
                        fields.append("\n<type>")
                                .append(PythonValues.str(f.get("type")))
                                .append("</type>");
                    }
                    if (f.get("description") instanceof String d) {
                        fields.append("\n<description>")
                                .append(PythonText.strip(d))
                                .append("</description>");
                    }
                    fields.append(extraKeys(f, Set.of("name", "type", "description")));
                }
                p.put("fields", fields.toString());
                params.add(p);
            }
        }
        v.put("parameters", params);
        v.put("extra", extraKeys(t.parameters(), Set.of("type", "properties")));
        return v;
    }

    /** The template's render_extra_keys macro. */
    private static String extraKeys(Map<?, ?> dict, Set<String> handled) {
        StringBuilder sb = new StringBuilder();
        for (var e : dict.entrySet()) {
            String key = String.valueOf(e.getKey());
            if (!handled.contains(key)) {
                sb.append("\n<")
                        .append(key)
                        .append('>')
                        .append(argument(e.getValue()))
                        .append("</")
                        .append(key)
                        .append('>');
            }
        }
        return sb.toString();
    }

    /** The template's {@code args_value | tojson if mapping or list else args_value | string}. */
    private static String argument(Object v) {
        return v instanceof Map<?, ?> || v instanceof List<?> ? PythonJson.dumps(v) : PythonValues.str(v);
    }

    private static List<Map<String, Object>> calls(List<ToolCall> calls, IntFunction<String> separator) {
        return QwenTurns.calls(calls, separator, (c, v) -> {
            List<Map<String, Object>> params = new ArrayList<>();
            if (PythonJson.arguments(c) instanceof Map<?, ?> args) {
                for (var e : args.entrySet()) {
                    params.add(Map.of("name", String.valueOf(e.getKey()), "value", argument(e.getValue())));
                }
            } else {
                throw new TemplateException("the arguments of tool call '" + c.name() + "' are not a JSON object");
            }
            v.put("parameters", params);
        });
    }

    /** {@inheritDoc} Its grammar types each parameter from the tool's schema (see {@link QwenXmlToolCalls#grammar}). */
    @Override
    public ToolCallSyntax toolCallSyntax() {
        return QwenXmlToolCalls.SYNTAX;
    }

    @Override
    public Reasoning reasoning(ChatPrompt prompt) {
        return QwenTemplate.thinkMarkers(this, !coder, prompt);
    }

    @Override
    public List<String> endOfTurn() {
        return List.of("<|im_end|>");
    }
}
