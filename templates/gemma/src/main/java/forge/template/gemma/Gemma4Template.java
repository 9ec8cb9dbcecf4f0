package forge.template.gemma;

import forge.api.TemplateException;
import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.OutputParser;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.lib.text.PythonJson;
import forge.lib.text.PythonText;
import forge.lib.text.PythonValues;
import forge.template.mustache.MustacheTemplate;
import forge.template.toolkit.TemplateCaps;
import forge.template.toolkit.calls.Gemma4ToolCalls;
import forge.template.toolkit.calls.Reasoning;
import forge.template.toolkit.calls.ToolCallSyntax;
import forge.template.toolkit.calls.ToolCallingTemplate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Gemma 4: a system turn (with {@code <|think|>} when {@code enable_thinking}, the system text and
 * the tool declarations), {@code <|turn>role ... <turn|>} turns, earlier reasoning replayed only
 * beside tool calls after the last user turn, tool calls and their responses inside the model's
 * turn, consecutive model messages merged into one turn, and a generation prompt that closes an
 * empty thought channel unless thinking is on.
 */
final class Gemma4Template extends MustacheTemplate implements ToolCallingTemplate {

    static final String THOUGHT_OPEN = "<|channel>thought";
    static final String CHANNEL_CLOSE = "<channel|>";

    /** The official template's capabilities (checked against the golden corpus): it takes every shape as sent. */
    static final TemplateCaps CAPS = TemplateCaps.AS_SENT;

    private final String bos;

    Gemma4Template(String bos) {
        super(GemmaTemplates.GEMMA4, Gemma4Template.class, "gemma", "gemma4");
        this.bos = bos.isEmpty() ? "<bos>" : bos;
    }

    /** The kinds of the template's {@code ns.prev_message_type} that matter at the end. */
    private enum Prev {
        NONE,
        OTHER,
        TOOL_CALL,
        TOOL_RESPONSE
    }

    @Override
    public String render(ChatPrompt prompt) {
        List<ChatMessage> messages = CAPS.fittedMessages(prompt); // AS_SENT: the messages as they are
        boolean thinking = PythonValues.truthy(prompt.options().get("enable_thinking"));
        boolean firstIsSystem = isSystem(messages.getFirst());
        Map<String, Object> scope = new HashMap<>();
        scope.put("bos", bos);
        Prev prev = Prev.NONE;
        if (thinking || !prompt.tools().isEmpty() || firstIsSystem) {
            scope.put("systemBlock", true);
            scope.put("think", thinking);
            // The official template trims the first message's content as a string: a list of parts prints as its repr.
            scope.put(
                    "system",
                    firstIsSystem
                            ? PythonText.strip(TemplateCaps.parts(messages.getFirst())
                                    .map(PythonValues::str)
                                    .orElse(messages.getFirst().content()))
                            : "");
            scope.put(
                    "declarations",
                    prompt.tools().stream()
                            .map(t -> Gemma4Notation.declaration(t.name(), t.description(), t.parameters()))
                            .toList());
            prev = thinking || !prompt.tools().isEmpty() ? Prev.OTHER : Prev.NONE;
        }
        List<ChatMessage> loop = firstIsSystem ? messages.subList(1, messages.size()) : messages;
        int lastUser = -1;
        for (int i = 0; i < loop.size(); i++) {
            if (loop.get(i).role() == Role.USER) {
                lastUser = i;
            }
        }
        List<Map<String, Object>> turns = new ArrayList<>();
        for (int i = 0; i < loop.size(); i++) {
            ChatMessage m = loop.get(i);
            if (m.role() == Role.TOOL) {
                continue; // printed inside the model turn that called it
            }
            prev = Prev.NONE;
            boolean model = m.role() == Role.ASSISTANT;
            Map<String, Object> turn = new HashMap<>();
            Role previous = null;
            for (int j = i - 1; j >= 0 && previous == null; j--) {
                if (loop.get(j).role() != Role.TOOL) {
                    previous = loop.get(j).role();
                }
            }
            turn.put("open", !(model && previous == Role.ASSISTANT));
            turn.put("role", model ? "model" : m.role().wire());
            if (!m.reasoningContent().isEmpty()
                    && i > lastUser
                    && !m.toolCalls().isEmpty()) {
                turn.put("hasThought", true);
                turn.put("thought", m.reasoningContent());
            }
            List<String> calls = new ArrayList<>();
            for (ToolCall c : m.toolCalls()) {
                calls.add(c.name() + "{" + Gemma4Notation.callArguments(PythonJson.arguments(c)) + "}");
                prev = Prev.TOOL_CALL;
            }
            turn.put("calls", calls);
            List<String> responses = new ArrayList<>();
            if (!m.toolCalls().isEmpty()) {
                for (int k = i + 1; k < loop.size() && loop.get(k).role() == Role.TOOL; k++) {
                    ChatMessage follow = loop.get(k);
                    String name = follow.name().isEmpty() ? null : follow.name();
                    for (ToolCall c : m.toolCalls()) {
                        if (c.id().equals(follow.toolCallId())) {
                            name = c.name();
                        }
                    }
                    if (name == null) {
                        // 'response:' + None fails in the official template too.
                        throw new TemplateException("tool message " + (k + 1)
                                + " names no tool and answers no call of the message before it");
                    }
                    responses.add(name + "{value:" + Gemma4Notation.argument(follow.content(), false) + "}");
                    prev = Prev.TOOL_RESPONSE;
                }
            }
            turn.put("responses", responses);
            turn.put("content", content(m, model));
            boolean responded = !responses.isEmpty();
            String end;
            if (prev == Prev.TOOL_CALL && !responded) {
                end = "<|tool_response>"; // the model's next words are the tool's answer
            } else if (!(responded && m.content().isEmpty())) {
                end = "<turn|>\n";
            } else {
                end = "";
            }
            turn.put("end", end);
            turns.add(turn);
        }
        scope.put("turns", turns);
        scope.put(
                "generationPrompt",
                prompt.addGenerationPrompt() && prev != Prev.TOOL_CALL && prev != Prev.TOOL_RESPONSE);
        scope.put("emptyThought", !thinking);
        return renderView(scope);
    }

    private static boolean isSystem(ChatMessage m) {
        return m.role() == Role.SYSTEM || m.role() == Role.DEVELOPER;
    }

    /**
     * A turn's text as the official template writes it: a string content stripped (of thinking, in
     * the model's turns), a list of content parts each text part stripped so on its own and the
     * results joined with nothing between (not the joined text stripped once).
     */
    static String content(ChatMessage m, boolean model) {
        Optional<List<?>> sent = TemplateCaps.parts(m);
        if (sent.isPresent()) {
            StringBuilder sb = new StringBuilder();
            for (Object part : sent.get()) {
                if (part instanceof Map<?, ?> p
                        && "text".equals(p.get("type"))
                        && p.get("text") instanceof String text) {
                    sb.append(model ? stripThinking(text) : PythonText.strip(text));
                }
            }
            return sb.toString();
        }
        return model ? stripThinking(m.content()) : PythonText.strip(m.content());
    }

    /** The template's {@code strip_thinking}: drops every {@code <|channel>...<channel|>}, then trims. */
    static String stripThinking(String text) {
        StringBuilder sb = new StringBuilder();
        for (String part : text.split(Pattern.quote(CHANNEL_CLOSE), -1)) {
            int open = part.indexOf("<|channel>");
            sb.append(open >= 0 ? part.substring(0, open) : part);
        }
        return PythonText.strip(sb.toString());
    }

    /** {@inheritDoc} Its arguments are in Gemma's notation, not JSON, so its grammar uses no {@code argumentRules}. */
    @Override
    public ToolCallSyntax toolCallSyntax() {
        return Gemma4ToolCalls.SYNTAX;
    }

    @Override
    public Reasoning reasoning(ChatPrompt prompt) {
        return new Reasoning(THOUGHT_OPEN, CHANNEL_CLOSE, false);
    }

    /** The syntax's parser, less the blank after each thought's start. */
    @Override
    public OutputParser parser(ChatPrompt prompt) {
        return new ThoughtTrimmer(ToolCallingTemplate.super.parser(prompt));
    }

    /** Drops the blank that follows {@code <|channel>thought} (llama.cpp's {@code p.space()}). */
    private static final class ThoughtTrimmer implements OutputParser {
        private final OutputParser inner;
        private boolean atThoughtStart = true;

        ThoughtTrimmer(OutputParser inner) {
            this.inner = inner;
        }

        @Override
        public List<ChatDelta> feed(String text) {
            return trim(inner.feed(text));
        }

        @Override
        public List<ChatDelta> finish() {
            return trim(inner.finish());
        }

        private List<ChatDelta> trim(List<ChatDelta> deltas) {
            List<ChatDelta> out = new ArrayList<>();
            for (ChatDelta d : deltas) {
                if (d instanceof ChatDelta.Reasoning r) {
                    String t = atThoughtStart ? r.text().stripLeading() : r.text();
                    if (!t.isEmpty()) {
                        atThoughtStart = false;
                        out.add(new ChatDelta.Reasoning(t));
                    }
                } else {
                    atThoughtStart = true;
                    out.add(d);
                }
            }
            return out;
        }
    }

    @Override
    public List<String> endOfTurn() {
        // After its calls the model writes <|tool_response> to hand the turn to the tools.
        return List.of("<turn|>", "<|tool_response>");
    }

    @Override
    public boolean rendersBos() {
        return true;
    }
}
