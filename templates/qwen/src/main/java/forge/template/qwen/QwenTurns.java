package forge.template.qwen;

import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.lib.text.PythonJson;
import forge.lib.text.PythonText;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;

/**
 * What the Qwen templates' turns have in common, whichever syntax their calls use: the system
 * roles, the tools as JSON lines, the split of an assistant turn's {@code <think>} block, tool
 * responses grouped into one turn, and the loop over an assistant turn's calls.
 */
final class QwenTurns {
    private QwenTurns() {}

    /** Whether {@code m} goes in the system block (developer messages do too). */
    static boolean isSystem(ChatMessage m) {
        return m.role() == Role.SYSTEM || m.role() == Role.DEVELOPER;
    }

    /** Each tool on its own line, the newline included here: Mustache would drop it after a section tag. */
    static List<String> toolJson(ChatPrompt prompt) {
        return prompt.tools().stream()
                .map(t -> "\n" + PythonJson.dumps(t.openAiTree()))
                .toList();
    }

    /**
     * An assistant turn's text with its reasoning taken out, as the official templates do:
     * {@code content.split('</think>')[-1].lstrip('\n')} and
     * {@code content.split('</think>')[0].rstrip('\n').split('<think>')[-1].lstrip('\n')}.
     *
     * @param reasoning the text inside the first {@code <think>} block
     * @param content   the text after the last {@code </think>}
     */
    record Think(String reasoning, String content) {
        /** {@code content} split at its {@code </think>}; without one, no reasoning and the content as it is. */
        static Think split(String content) {
            if (!content.contains("</think>")) {
                return new Think("", content);
            }
            String before = PythonText.rstrip(content.substring(0, content.indexOf("</think>")), "\n");
            String after = content.substring(content.lastIndexOf("</think>") + "</think>".length());
            int open = before.lastIndexOf("<think>");
            return new Think(
                    PythonText.lstrip(open < 0 ? before : before.substring(open + "<think>".length()), "\n"),
                    PythonText.lstrip(after, "\n"));
        }
    }

    /**
     * Fills {@code turn} as the tool response {@code messages.get(i)}: consecutive responses share
     * one turn, which the first opens and the last closes.
     *
     * @param openAtStart whether a response that is the first message opens a group (Qwen 3.5
     *                    and Qwen3-Coder open one only after another message)
     */
    static void toolResponse(
            Map<String, Object> turn, List<ChatMessage> messages, int i, String content, boolean openAtStart) {
        turn.put("tool", true);
        turn.put("opensGroup", i == 0 ? openAtStart : messages.get(i - 1).role() != Role.TOOL);
        turn.put("closesGroup", i == messages.size() - 1 || messages.get(i + 1).role() != Role.TOOL);
        turn.put("content", content);
    }

    /**
     * The scope of each of {@code calls}: its separator ({@code separator} of its index), its name,
     * and what {@code body} adds for the call syntax.
     */
    static List<Map<String, Object>> calls(
            List<ToolCall> calls, IntFunction<String> separator, BiConsumer<ToolCall, Map<String, Object>> body) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int j = 0; j < calls.size(); j++) {
            ToolCall c = calls.get(j);
            Map<String, Object> v = new HashMap<>();
            v.put("separator", separator.apply(j));
            v.put("name", c.name());
            body.accept(c, v);
            out.add(v);
        }
        return out;
    }
}
