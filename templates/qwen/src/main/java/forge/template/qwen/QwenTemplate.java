package forge.template.qwen;

import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.lib.text.PythonJson;
import forge.lib.text.PythonText;
import forge.template.mustache.MustacheTemplate;
import forge.template.toolkit.TemplateCaps;
import forge.template.toolkit.calls.HermesToolCalls;
import forge.template.toolkit.calls.Reasoning;
import forge.template.toolkit.calls.ToolCallSyntax;
import forge.template.toolkit.calls.ToolCallingTemplate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Qwen 2.5 and Qwen 3: ChatML turns, tools as JSON lines in the system turn, calls as
 * {@code <tool_call>} JSON, tool results grouped in one user turn; Qwen 3 adds {@code <think>}
 * reasoning, replayed only for the turns after the last user query, and {@code enable_thinking}.
 */
final class QwenTemplate extends MustacheTemplate implements ToolCallingTemplate {

    static final String DEFAULT_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.";

    private final boolean thinking;

    /** The official templates' capabilities (checked against the golden corpus): Qwen 2.5 and 3 print content as a string. */
    static TemplateCaps caps(String variant) {
        return new TemplateCaps(true, !variant.equals(QwenTemplates.QWEN25), true);
    }

    QwenTemplate(String name) {
        super(name, QwenTemplate.class, "qwen", name);
        this.thinking = !name.equals(QwenTemplates.QWEN25);
    }

    @Override
    public String render(ChatPrompt prompt) {
        List<ChatMessage> messages = caps(name()).fittedMessages(prompt);
        Map<String, Object> scope = new HashMap<>();
        boolean firstIsSystem = QwenTurns.isSystem(messages.getFirst());
        scope.put("hasSystem", firstIsSystem);
        scope.put("system", firstIsSystem ? messages.getFirst().content() : thinking ? "" : DEFAULT_SYSTEM);
        scope.put(
                "systemLead",
                scope.get("system") + "\n\n"); // before the tools; Mustache drops newlines beside section tags
        scope.put("hasTools", !prompt.tools().isEmpty());
        scope.put("toolJson", QwenTurns.toolJson(prompt));
        int lastQuery = lastQueryIndex(messages);
        List<Map<String, Object>> turns = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage m = messages.get(i);
            Map<String, Object> turn = new HashMap<>();
            String role = QwenTurns.isSystem(m) ? "system" : m.role().wire();
            switch (m.role()) {
                case SYSTEM, DEVELOPER, USER -> {
                    if (i == 0 && QwenTurns.isSystem(m)) {
                        continue; // already in the system block
                    }
                    turn.put("plain", true);
                    turn.put("role", role);
                    turn.put("content", m.content());
                }
                case ASSISTANT -> {
                    if (thinking) {
                        assistant3(turn, m, i, i == messages.size() - 1, lastQuery);
                    } else if (m.toolCalls().isEmpty()) {
                        turn.put("plain", true);
                        turn.put("role", role);
                        turn.put("content", m.content());
                    } else {
                        turn.put("assistant", true);
                        turn.put("body", m.content().isEmpty() ? "" : "\n" + m.content());
                        turn.put("calls", calls(m.toolCalls(), false, true));
                    }
                }
                case TOOL -> QwenTurns.toolResponse(turn, messages, i, m.content(), true);
            }
            turns.add(turn);
        }
        scope.put("turns", turns);
        scope.put("generationPrompt", prompt.addGenerationPrompt());
        scope.put(
                "thinkingOff", thinking && Boolean.FALSE.equals(prompt.options().get("enable_thinking")));
        return renderView(scope);
    }

    /** Qwen 3's ns.last_query_index: the last user turn that is not a wrapped tool response. */
    private static int lastQueryIndex(List<ChatMessage> messages) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            ChatMessage m = messages.get(i);
            if (m.role() == Role.USER
                    && !(m.content().startsWith("<tool_response>")
                            && m.content().endsWith("</tool_response>"))) {
                return i;
            }
        }
        return messages.size() - 1;
    }

    private static void assistant3(Map<String, Object> turn, ChatMessage m, int index, boolean last, int lastQuery) {
        String content = m.content();
        String reasoning = m.reasoningContent();
        if (reasoning.isEmpty()) {
            QwenTurns.Think split = QwenTurns.Think.split(content);
            reasoning = split.reasoning();
            content = split.content();
        }
        String body;
        if (index > lastQuery && (last || !reasoning.isEmpty())) {
            body = "\n<think>\n" + PythonText.strip(reasoning, "\n") + "\n</think>\n\n"
                    + PythonText.lstrip(content, "\n");
        } else {
            body = "\n" + content;
        }
        turn.put("assistant", true);
        turn.put("body", body);
        turn.put("calls", calls(m.toolCalls(), !content.isEmpty(), false));
    }

    private static List<Map<String, Object>> calls(List<ToolCall> calls, boolean afterContent, boolean alwaysNewline) {
        return QwenTurns.calls(calls, j -> alwaysNewline || j > 0 || afterContent ? "\n" : "", (c, v) -> {
            v.put("arguments", PythonJson.dumps(PythonJson.arguments(c)));
            v.put("closeBrace", "}");
        });
    }

    @Override
    public ToolCallSyntax toolCallSyntax() {
        return HermesToolCalls.SYNTAX;
    }

    @Override
    public Reasoning reasoning(ChatPrompt prompt) {
        return thinkMarkers(this, thinking, prompt);
    }

    /**
     * Qwen's reasoning, for a variant that reasons ({@code reasons}): between {@code <think>} and
     * {@code </think>}, the output starting inside when {@code template}'s generation prompt
     * already opened it; none for one that does not.
     */
    static Reasoning thinkMarkers(ChatTemplate template, boolean reasons, ChatPrompt prompt) {
        if (!reasons) {
            return Reasoning.NONE;
        }
        boolean startsInReasoning =
                prompt.addGenerationPrompt() && template.render(prompt).endsWith("<think>\n");
        return new Reasoning("<think>", "</think>", startsInReasoning);
    }

    @Override
    public List<String> endOfTurn() {
        return List.of("<|im_end|>");
    }
}
