package forge.template.kimi;

import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.lib.text.PythonJson;
import forge.lib.text.PythonValues;
import forge.template.mustache.MustacheTemplate;
import forge.template.toolkit.TemplateCaps;
import forge.template.toolkit.calls.KimiToolCalls;
import forge.template.toolkit.calls.ToolCallSyntax;
import forge.template.toolkit.calls.ToolCallingTemplate;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Kimi K2: {@code <|im_system|>}/{@code <|im_user|>}/{@code <|im_assistant|>} turns closed by
 * {@code <|im_end|>}, tools declared as one JSON list, calls in section tokens with ids
 * {@code functions.NAME:IDX}.
 *
 * <p>The two variants differ in small ways the Java side decides: the default system prompt (and
 * the instruct template's newline after it); call ids counted per message ({@code kimi-k2}) or
 * across the conversation ({@code kimi-k2-instruct}); the tool result's header
 * ({@code ## Return of ID} followed by a literal backslash-n in {@code kimi-k2}, a newline in
 * {@code kimi-k2-instruct}, which also names the call from its own queue of ids); and role names
 * ({@code kimi-k2-instruct} prints a message's {@code name} in place of its role).
 */
final class KimiTemplate extends MustacheTemplate implements ToolCallingTemplate {

    private final boolean instruct;

    /** The official templates' capabilities (checked against the golden corpus): text parts taken, the developer role not named. */
    static final TemplateCaps CAPS = new TemplateCaps(false, false, true);

    KimiTemplate(String name) {
        super(name, KimiTemplate.class, "kimi", "kimi");
        this.instruct = name.equals(KimiTemplates.KIMI_K2_INSTRUCT);
    }

    @Override
    public String render(ChatPrompt prompt) {
        List<ChatMessage> messages = prompt.messages();
        Map<String, Object> scope = new HashMap<>();
        scope.put("hasTools", !prompt.tools().isEmpty());
        scope.put(
                "toolsJson",
                PythonJson.dumps(
                        prompt.tools().stream().map(ToolDefinition::openAiTree).toList()));
        String defaultSystem = "";
        if (!messages.isEmpty() && !isSystem(messages.getFirst())) {
            defaultSystem = instruct
                    ? "<|im_system|>system<|im_middle|>You are Kimi, an AI assistant created by Moonshot AI.<|im_end|>\n"
                    : "<|im_system|>system<|im_middle|>You are a helpful assistant<|im_end|>";
        }
        scope.put("defaultSystem", defaultSystem);
        Deque<String> pendingIds = new ArrayDeque<>(); // the instruct template's tool_response_queue
        int counter = 0;
        List<Map<String, Object>> turns = new ArrayList<>();
        for (ChatMessage m : messages) {
            Map<String, Object> turn = new HashMap<>();
            String role = isSystem(m) ? "system" : m.role().wire();
            turn.put(
                    "open",
                    switch (m.role()) {
                        case USER -> "<|im_user|>";
                        case ASSISTANT -> "<|im_assistant|>";
                        default -> "<|im_system|>";
                    });
            turn.put("role", instruct && !m.name().isEmpty() ? m.name() : role);
            String content = m.content();
            if (m.role() == Role.ASSISTANT && !m.toolCalls().isEmpty()) {
                List<Map<String, Object>> calls = new ArrayList<>();
                for (int j = 0; j < m.toolCalls().size(); j++) {
                    ToolCall c = m.toolCalls().get(j);
                    String id = "functions." + c.name() + ":" + (instruct ? counter++ : j);
                    pendingIds.add(id);
                    calls.add(Map.of("id", id, "arguments", PythonJson.dumps(PythonJson.arguments(c))));
                }
                turn.put("hasCalls", true);
                turn.put("calls", calls);
            } else if (m.role() == Role.TOOL) {
                if (instruct) {
                    String id = pendingIds.isEmpty()
                            ? "functions." + (m.name().isEmpty() ? "unknown" : m.name()) + ":" + counter
                            : pendingIds.removeFirst();
                    content = "## Return of " + id + "\n" + content;
                } else {
                    // The original template's "\n" is outside any string literal, so Jinja prints it as is;
                    // it prints a result sent as a list of parts as the list's repr.
                    content = "## Return of " + m.toolCallId() + "\\n"
                            + TemplateCaps.parts(m).map(PythonValues::str).orElse(content);
                }
            }
            turn.put("content", content);
            turns.add(turn);
        }
        scope.put("turns", turns);
        scope.put("generationPrompt", prompt.addGenerationPrompt());
        return renderView(scope);
    }

    private static boolean isSystem(ChatMessage m) {
        return m.role() == Role.SYSTEM || m.role() == Role.DEVELOPER;
    }

    @Override
    public ToolCallSyntax toolCallSyntax() {
        return KimiToolCalls.SYNTAX;
    }

    @Override
    public List<String> endOfTurn() {
        return List.of("<|im_end|>");
    }
}
