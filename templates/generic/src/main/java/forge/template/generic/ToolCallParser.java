package forge.template.generic;

import forge.api.template.ChatDelta;
import forge.api.template.OutputParser;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Reads Hermes/Qwen-style tool calls out of ChatML output:
 * {@code <tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>}, as
 * {@link ChatMlTemplate#toolCallGrammar} writes them. Text outside calls is content; a call is
 * emitted whole when it closes (its arguments in one delta), or at the end of the output when
 * it never closes. A call whose JSON does not read as a call stays content, so nothing is lost.
 * Whitespace between calls is dropped.
 */
final class ToolCallParser implements OutputParser {

    static final String OPEN = "<tool_call>";
    static final String CLOSE = "</tool_call>";

    private final StringBuilder buffer = new StringBuilder();
    private final StringBuilder pendingSpace = new StringBuilder();
    private boolean inCall;
    private int calls;

    @Override
    public List<ChatDelta> feed(String text) {
        buffer.append(text);
        List<ChatDelta> out = new ArrayList<>();
        while (true) {
            if (!inCall) {
                int open = buffer.indexOf(OPEN);
                if (open >= 0) {
                    content(buffer.substring(0, open), out);
                    buffer.delete(0, open + OPEN.length());
                    inCall = true;
                    continue;
                }
                // Hold back what may be the start of an opening tag.
                int keep = partialSuffix(buffer, OPEN);
                content(buffer.substring(0, buffer.length() - keep), out);
                buffer.delete(0, buffer.length() - keep);
                return out;
            }
            int close = buffer.indexOf(CLOSE);
            if (close < 0) {
                return out;
            }
            call(buffer.substring(0, close), out);
            buffer.delete(0, close + CLOSE.length());
            inCall = false;
        }
    }

    @Override
    public List<ChatDelta> finish() {
        List<ChatDelta> out = new ArrayList<>();
        if (inCall) {
            call(buffer.toString(), out);
        } else {
            content(buffer.toString(), out);
        }
        buffer.setLength(0);
        if (calls == 0 && !pendingSpace.isEmpty()) {
            out.add(new ChatDelta.Content(pendingSpace.toString()));
        }
        pendingSpace.setLength(0);
        return out;
    }

    private void content(String text, List<ChatDelta> out) {
        if (text.isEmpty()) {
            return;
        }
        if (text.isBlank()) {
            pendingSpace.append(text); // maybe only the separator between two calls
            return;
        }
        out.add(new ChatDelta.Content(pendingSpace + text));
        pendingSpace.setLength(0);
    }

    private void call(String body, List<ChatDelta> out) {
        String[] nameAndArgs = MiniJson.call(body.strip());
        if (nameAndArgs == null) {
            content(OPEN + body + (inCall ? CLOSE : ""), out);
            return;
        }
        pendingSpace.setLength(0);
        out.add(new ChatDelta.ToolCallDelta(calls++, newId(), nameAndArgs[0], nameAndArgs[1]));
    }

    private static String newId() {
        String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        StringBuilder sb = new StringBuilder("call_");
        ThreadLocalRandom r = ThreadLocalRandom.current();
        for (int i = 0; i < 24; i++) {
            sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    /** The length of the longest suffix of {@code s} that is a proper prefix of {@code tag}. */
    static int partialSuffix(CharSequence s, String tag) {
        for (int n = Math.min(tag.length() - 1, s.length()); n > 0; n--) {
            if (tag.startsWith(s.subSequence(s.length() - n, s.length()).toString())) {
                return n;
            }
        }
        return 0;
    }
}
