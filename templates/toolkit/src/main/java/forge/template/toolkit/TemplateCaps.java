package forge.template.toolkit;

import forge.api.TemplateException;
import forge.api.template.ChatImage;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.lib.text.PythonJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a chat template can take of the message shapes OpenAI's API allows, and so what it is given.
 *
 * <p>A template gets each message as the client sent it, as transformers' {@code apply_chat_template}
 * passes it: content-part lists, {@code content: null} and unknown keys included. Three shapes that
 * nearly every client sends break many official templates that were written before them, and for a
 * template that cannot take one ForgeLM passes what llama-server passes instead:
 * <ul>
 *   <li><b>text parts</b> ({@code [{"type": "text", "text": ...}]}): a template that raises on the
 *       list or prints its Python repr ({@code [{'type': 'text', ...}]}) while it prints string
 *       content gets the texts joined with {@code "\n"} (llama-server's join);</li>
 *   <li><b>{@code content: null}</b> beside tool calls: a template that raises on it or prints
 *       {@code None} where {@code ""} renders gets {@code ""} (Qwen 3 tests {@code '</think>' in
 *       message.content}, which raises on None, on the second turn of every agent);</li>
 *   <li><b>the developer role</b>: a template that does not name it (most raise "Unexpected message
 *       role" or drop the message, losing the instructions) gets it as {@code system}, as llama-server
 *       maps it for every template but those that know the role.</li>
 * </ul>
 * Which applies is found once per template by rendering probes ({@link #probe}), as llama.cpp finds
 * a template's capabilities; a template that takes a shape gets it untouched. The golden corpus's
 * generator ({@code templates/golden/make_golden.py}) runs the same probes and the same fit, and the
 * corpus records each official template's capabilities, which {@code JinjaFidelityTest} and each
 * family's declared capabilities are checked against.
 *
 * @param joinParts         text-part lists are joined to one string
 * @param nullAsEmpty       {@code content: null} becomes {@code ""}
 * @param developerAsSystem the developer role becomes system
 */
public record TemplateCaps(boolean joinParts, boolean nullAsEmpty, boolean developerAsSystem) {

    /** A template that takes every shape as sent. */
    public static final TemplateCaps AS_SENT = new TemplateCaps(false, false, false);

    /** A template's render for the probes: messages and tools (null for none) in, text out, or an exception. */
    @FunctionalInterface
    public interface Probe {
        String render(List<Object> messages, List<Object> tools) throws Exception;
    }

    /**
     * Probes {@code template} (whose source is {@code source}): a string message, a two-part message,
     * a tool call with {@code content: null} and with {@code ""}.
     */
    public static TemplateCaps probe(Probe template, String source) {
        String plain = attempt(template, List.of(message("user", "forge-probe-text")), null);
        boolean strings = plain != null && plain.contains("forge-probe-text");
        String parts = attempt(
                template, List.of(message("user", List.of(part("forge-probe-a"), part("forge-probe-b")))), null);
        boolean typed = parts != null
                && parts.contains("forge-probe-a")
                && parts.contains("forge-probe-b")
                && !parts.contains("'type': 'text'");
        String withNull = attempt(template, calls(null), List.of(probeTool()));
        String withEmpty = attempt(template, calls(""), List.of(probeTool()));
        boolean nullBreaks =
                withEmpty != null && (withNull == null || (withNull.contains("None") && !withEmpty.contains("None")));
        return new TemplateCaps(strings && !typed, nullBreaks, !source.contains("developer"));
    }

    /**
     * The messages the template is given: {@code messages} (JSON-shaped maps, each a copy the caller
     * owns) changed in place where this template cannot take their shape.
     */
    @SuppressWarnings("unchecked")
    public List<Object> fit(List<Object> messages) {
        for (Object o : messages) {
            if (!(o instanceof Map<?, ?> raw)) {
                continue;
            }
            Map<String, Object> m = (Map<String, Object>) raw;
            if (developerAsSystem && "developer".equals(m.get("role"))) {
                m.put("role", "system");
            }
            if (m.get("content") instanceof List<?> list && (joinParts || hasMarker(list))) {
                m.put("content", joined(list));
            }
            if (nullAsEmpty && m.containsKey("content") && m.get("content") == null) {
                m.put("content", "");
            }
        }
        return messages;
    }

    /**
     * A message's text as a template of these capabilities reads it: for a message sent with text
     * parts, the parts {@link #joined} when this template joins them or they hold an image's marker
     * (llama-server joins those for every template), else the parts' texts run together (as
     * {@link ChatMessage#content} holds them); otherwise its content.
     */
    public String text(ChatMessage m) {
        // a message with an image has its marker in its content: others are not parsed again here
        // unless this template joins parts
        if (joinParts || m.content().contains(ChatImage.MARKER)) {
            Optional<List<?>> parts = parts(m);
            if (parts.isPresent() && (joinParts || hasMarker(parts.get()))) {
                return joined(parts.get());
            }
        }
        return m.content();
    }

    /**
     * The prompt's messages {@link #fitted}, for a template that reads the first of them as the
     * official ones do ({@code messages[0]}, which fails on an empty list).
     *
     * @throws TemplateException when the conversation has no messages
     */
    public List<ChatMessage> fittedMessages(ChatPrompt prompt) {
        List<ChatMessage> messages = fitted(prompt.messages());
        if (messages.isEmpty()) {
            throw new TemplateException("the conversation has no messages");
        }
        return messages;
    }

    /** {@code messages} with each one's {@link ChatMessage#content} as {@link #text} reads it (the same list when nothing changes). */
    public List<ChatMessage> fitted(List<ChatMessage> messages) {
        List<ChatMessage> out = null;
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage m = messages.get(i);
            String text = text(m);
            if (!text.equals(m.content())) {
                if (out == null) {
                    out = new ArrayList<>(messages);
                }
                out.set(
                        i,
                        new ChatMessage(
                                m.role(),
                                text,
                                m.name(),
                                m.toolCalls(),
                                m.toolCallId(),
                                m.reasoningContent(),
                                m.wire()));
            }
        }
        return out == null ? messages : out;
    }

    /** The content of {@code m} as the client sent it when that was a list of parts (as parsed JSON), else empty. */
    public static Optional<List<?>> parts(ChatMessage m) {
        if (!m.wire().isEmpty()
                && PythonJson.parse(m.wire()) instanceof Map<?, ?> sent
                && sent.get("content") instanceof List<?> list) {
            return Optional.of(list);
        }
        return Optional.empty();
    }

    /** Whether {@code m} is a system message for this template (system, or developer mapped to it). */
    public boolean isSystem(ChatMessage m) {
        return m.role() == Role.SYSTEM || (developerAsSystem && m.role() == Role.DEVELOPER);
    }

    /**
     * Text parts joined as llama-server joins them for a template that takes only strings, or for a
     * message with an image: {@code "\n"} between texts but none before or after an image's marker
     * (a part holding {@link ChatImage#MARKER} alone, as the doors hand an image to a template), other
     * part types skipped.
     */
    public static String joined(List<?> parts) {
        StringBuilder text = new StringBuilder();
        boolean afterMarker = false;
        for (Object p : parts) {
            if (p instanceof Map<?, ?> part && "text".equals(part.get("type"))) {
                String t = part.get("text") instanceof String s ? s : "";
                boolean marker = t.equals(ChatImage.MARKER);
                if (!text.isEmpty() && !marker && !afterMarker) {
                    text.append('\n');
                }
                text.append(t);
                afterMarker = marker;
            }
        }
        return text.toString();
    }

    /** Whether {@code parts} hold an image's marker: llama-server then joins them for every template. */
    static boolean hasMarker(List<?> parts) {
        for (Object p : parts) {
            if (p instanceof Map<?, ?> part
                    && "text".equals(part.get("type"))
                    && ChatImage.MARKER.equals(part.get("text"))) {
                return true;
            }
        }
        return false;
    }

    private static String attempt(Probe template, List<Object> messages, List<Object> tools) {
        try {
            return template.render(messages, tools);
        } catch (Exception | StackOverflowError e) {
            return null;
        }
    }

    /** A chat message as the official templates read it; mutable, for the probes that add to it. */
    static Map<String, Object> message(String role, Object content) {
        return ordered("role", role, "content", content);
    }

    /** A text content part. */
    static Map<String, Object> part(String text) {
        return ordered("type", "text", "text", text);
    }

    private static List<Object> calls(String content) {
        Map<String, Object> call = ordered(
                "id",
                "forge_probe_1",
                "type",
                "function",
                "function",
                ordered("name", "probe_fn", "arguments", new LinkedHashMap<>()));
        Map<String, Object> assistant = message("assistant", content);
        assistant.put("tool_calls", new ArrayList<>(List.of(call)));
        Map<String, Object> tool = message("tool", "forge-probe-r");
        tool.put("tool_call_id", "forge_probe_1");
        return new ArrayList<>(List.of(message("user", "forge-probe-q"), assistant, tool));
    }

    private static Map<String, Object> probeTool() {
        Map<String, Object> parameters = ordered("type", "object", "properties", new LinkedHashMap<>());
        return ordered(
                "type",
                "function",
                "function",
                ordered("name", "probe_fn", "description", "probe", "parameters", parameters));
    }

    /** A mutable map of these keys and values, in this order (as a template iterating it sees them). */
    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }
}
