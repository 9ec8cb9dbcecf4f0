package forge.template.qwen;

import com.github.mustachejava.Mustache;
import forge.api.TemplateException;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.lib.text.PythonJson;
import forge.lib.text.PythonText;
import forge.template.mustache.PromptMustache;
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
final class QwenTemplate implements ToolCallingTemplate {

    static final String DEFAULT_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.";

    private final String name;
    private final boolean thinking;
    private final Mustache mustache;

    /** The official templates' capabilities (checked against the golden corpus): Qwen 2.5 and 3 print content as a string. */
    static TemplateCaps caps(String variant) {
        return new TemplateCaps(true, !variant.equals(QwenTemplates.QWEN25), true);
    }

    QwenTemplate(String name) {
        this.name = name;
        this.thinking = !name.equals(QwenTemplates.QWEN25);
        this.mustache = PromptMustache.compile(QwenTemplate.class, "qwen", name);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String render(ChatPrompt prompt) {
        List<ChatMessage> messages = caps(name).fitted(prompt.messages());
        if (messages.isEmpty()) {
            // The official template indexes messages[0] and fails on an empty list.
            throw new TemplateException("the conversation has no messages");
        }
        Map<String, Object> scope = new HashMap<>();
        boolean firstIsSystem = isSystem(messages.getFirst());
        scope.put("hasSystem", firstIsSystem);
        scope.put("system", firstIsSystem ? messages.getFirst().content() : thinking ? "" : DEFAULT_SYSTEM);
        scope.put(
                "systemLead",
                scope.get("system") + "\n\n"); // before the tools; Mustache drops newlines beside section tags
        scope.put("hasTools", !prompt.tools().isEmpty());
        // Each tool on its own line, the newline included here: Mustache would drop it after a section tag.
        scope.put(
                "toolJson",
                prompt.tools().stream()
                        .map(t -> "\n" + PythonJson.dumps(t.openAiTree()))
                        .toList());
        int lastQuery = lastQueryIndex(messages);
        List<Map<String, Object>> turns = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage m = messages.get(i);
            Map<String, Object> turn = new HashMap<>();
            String role = isSystem(m) ? "system" : m.role().wire();
            switch (m.role()) {
                case SYSTEM, DEVELOPER, USER -> {
                    if (i == 0 && isSystem(m)) {
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
                case TOOL -> {
                    turn.put("tool", true);
                    turn.put("opensGroup", i == 0 || messages.get(i - 1).role() != Role.TOOL);
                    turn.put(
                            "closesGroup",
                            i == messages.size() - 1 || messages.get(i + 1).role() != Role.TOOL);
                    turn.put("content", m.content());
                }
            }
            turns.add(turn);
        }
        scope.put("turns", turns);
        scope.put("generationPrompt", prompt.addGenerationPrompt());
        scope.put(
                "thinkingOff", thinking && Boolean.FALSE.equals(prompt.options().get("enable_thinking")));
        return PromptMustache.render(mustache, scope);
    }

    private static boolean isSystem(ChatMessage m) {
        return m.role() == Role.SYSTEM || m.role() == Role.DEVELOPER;
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
        String reasoning = "";
        if (!m.reasoningContent().isEmpty()) {
            reasoning = m.reasoningContent();
        } else if (content.contains("</think>")) {
            // content.split('</think>')[-1].lstrip('\n') and [0].rstrip('\n').split('<think>')[-1].lstrip('\n')
            String before = content.substring(0, content.indexOf("</think>"));
            String after = content.substring(content.lastIndexOf("</think>") + "</think>".length());
            content = PythonText.lstrip(after, "\n");
            before = PythonText.rstrip(before, "\n");
            int open = before.lastIndexOf("<think>");
            reasoning = PythonText.lstrip(open < 0 ? before : before.substring(open + "<think>".length()), "\n");
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
        List<Map<String, Object>> out = new ArrayList<>();
        for (int j = 0; j < calls.size(); j++) {
            ToolCall c = calls.get(j);
            Map<String, Object> v = new HashMap<>();
            v.put("separator", alwaysNewline || j > 0 || afterContent ? "\n" : "");
            v.put("name", c.name());
            v.put("arguments", PythonJson.dumps(PythonJson.arguments(c)));
            v.put("closeBrace", "}");
            out.add(v);
        }
        return out;
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
