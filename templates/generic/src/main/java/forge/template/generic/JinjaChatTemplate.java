package forge.template.generic;

import forge.api.TemplateException;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.OutputParser;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.lib.text.PythonJson;
import forge.template.jinja.JinjaException;
import forge.template.jinja.Template;
import forge.template.toolkit.TemplateCaps;
import forge.template.toolkit.calls.HermesToolCalls;
import forge.template.toolkit.calls.Reasoning;
import forge.template.toolkit.calls.ToolCallSyntax;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A model's own Jinja chat template ({@code tokenizer.chat_template}) as a {@link ChatTemplate}:
 * compiled once with {@link Template forge.template.jinja}, rendered with the variables
 * transformers' {@code apply_chat_template} passes ({@code messages}, {@code tools} ({@code None}
 * when there are none), {@code add_generation_prompt}, {@code bos_token}, {@code eos_token} and
 * every {@code chat_template_kwargs} entry). A template that fails where Jinja2 raises fails here
 * too, with Python's message, or its own for {@code raise_exception}.
 */
public final class JinjaChatTemplate implements ChatTemplate {

    /** End-of-turn markers of the common chat formats, kept when the template writes them. */
    private static final List<String> KNOWN_END_MARKERS = List.of(
            "<|im_end|>",
            "<|eot_id|>",
            "<|end_of_text|>",
            "<end_of_turn>",
            "<|end|>",
            "<|endoftext|>",
            "<|eom_id|>",
            "</s>",
            "<|im_end|>",
            "<｜end▁of▁sentence｜>",
            "<|return|>",
            "<|turn_end|>");

    private final String name;
    private final String source;
    private final String bosToken;
    private final String eosToken;
    private final Template template;
    private final List<String> endOfTurn;
    private final TemplateCaps caps;
    /**
     * The syntax the template writes calls in, when the server knows it: Hermes-style
     * {@code <tool_call>} blocks. Empty for any other: its calls are content, and never forced.
     */
    private final Optional<ToolCallSyntax> calls;

    /**
     * Compiles {@code source}.
     *
     * @throws TemplateException when it does not parse, with Jinja2's reason and the line
     */
    public JinjaChatTemplate(String name, String source, String bosToken, String eosToken) {
        this(name, source, bosToken, eosToken, Clock.systemDefaultZone());
    }

    /** With the clock that {@code strftime_now} reads (tests fix it). */
    @SuppressWarnings("unchecked")
    JinjaChatTemplate(String name, String source, String bosToken, String eosToken, Clock clock) {
        this.name = name;
        this.source = source;
        this.bosToken = bosToken;
        this.eosToken = eosToken;
        try {
            this.template = Template.compile(source).withClock(clock);
        } catch (JinjaException e) {
            throw new TemplateException(
                    "the model's chat template does not parse: line " + e.line() + ": " + e.getMessage(), e);
        }
        this.endOfTurn = endMarkers(source, eosToken);
        this.calls = HermesToolCalls.SYNTAX.usedBy(source) ? Optional.of(HermesToolCalls.SYNTAX) : Optional.empty();
        this.caps = TemplateCaps.probe(
                (messages, tools) -> template.render(context(
                        (List<Object>) jinja(messages),
                        tools == null ? null : (List<Object>) jinja(tools),
                        true,
                        Map.of())),
                source);
    }

    /** What this template takes of the message shapes clients send (found by probing it once). */
    public TemplateCaps caps() {
        return caps;
    }

    /**
     * The rule for {@link #endOfTurn}: the model's EOS text, then each well-known end-of-turn
     * marker that the template itself writes (a template that closes turns with
     * {@code <|im_end|>} makes the model end its turn with it too, whatever its EOS token).
     */
    static List<String> endMarkers(String source, String eosToken) {
        Set<String> out = new LinkedHashSet<>();
        if (!eosToken.isEmpty()) {
            out.add(eosToken);
        }
        for (String marker : KNOWN_END_MARKERS) {
            if (source.contains(marker)) {
                out.add(marker);
            }
        }
        return List.copyOf(out);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<String> endOfTurn() {
        return endOfTurn;
    }

    /** The model's template writes Hermes-style {@code <tool_call>} blocks: its calls are read as such when tools are offered. */
    @Override
    public OutputParser parser(ChatPrompt prompt) {
        return calls.map(c -> c.parserWhenOffered(Reasoning.NONE, prompt.tools()))
                .orElseGet(OutputParser.PLAIN);
    }

    /** Empty unless the template writes Hermes-style {@code <tool_call>} blocks: any other syntax is unknown here. */
    @Override
    public Optional<String> toolCallGrammar(
            List<ToolDefinition> tools, Map<String, String> argumentRules, boolean parallel) {
        return calls.flatMap(c -> c.grammar(tools, argumentRules, parallel));
    }

    @Override
    public List<String> toolCallTriggers() {
        return calls.map(ToolCallSyntax::triggers).orElse(List.of());
    }

    @Override
    public boolean rendersBos() {
        return !bosToken.isEmpty() && source.contains("bos_token");
    }

    @Override
    public String render(ChatPrompt prompt) {
        // transformers passes tools=None when there are none: templates test `if tools`, and some iterate it
        // regardless.
        Map<String, Object> context = context(
                caps.fit(messages(prompt.messages())),
                prompt.tools().isEmpty() ? null : tools(prompt.tools()),
                prompt.addGenerationPrompt(),
                prompt.options());
        try {
            return template.render(context);
        } catch (JinjaException e) {
            throw e.raised()
                    ? new TemplateException(e.getMessage(), e)
                    : new TemplateException(
                            "the model's chat template failed" + (e.line() > 0 ? " at line " + e.line() : "") + ": "
                                    + e.getMessage(),
                            e);
        }
    }

    /** The variables transformers renders with: every {@code chat_template_kwargs} entry, then its own. */
    private Map<String, Object> context(
            List<Object> messages, List<Object> tools, boolean addGenerationPrompt, Map<String, Object> options) {
        Map<String, Object> context = new HashMap<>();
        for (Map.Entry<String, Object> option : options.entrySet()) {
            context.put(option.getKey(), jinja(option.getValue()));
        }
        context.put("messages", messages);
        context.put("tools", tools);
        context.put("add_generation_prompt", addGenerationPrompt);
        context.put("bos_token", bosToken);
        context.put("eos_token", eosToken);
        return context;
    }

    /**
     * Messages as transformers hands them over: a client's message exactly as it sent it
     * ({@link ChatMessage#wire}: content-part lists, {@code content: null} and unknown keys reach
     * the template as they are), else OpenAI's JSON shape built from the fields; tool-call
     * arguments parsed to JSON objects either way, as llama-server passes them.
     */
    static List<Object> messages(List<ChatMessage> messages) {
        List<Object> out = new ArrayList<>(messages.size());
        for (ChatMessage m : messages) {
            if (!m.wire().isEmpty()) {
                out.add(asSent(m));
                continue;
            }
            Map<String, Object> view = new LinkedHashMap<>();
            view.put("role", m.role().wire());
            view.put("content", m.content());
            if (!m.name().isEmpty()) {
                view.put("name", m.name());
            }
            if (!m.toolCalls().isEmpty()) {
                List<Object> calls = new ArrayList<>();
                for (ToolCall call : m.toolCalls()) {
                    Map<String, Object> function = new LinkedHashMap<>();
                    function.put("name", call.name());
                    function.put("arguments", jinja(PythonJson.arguments(call)));
                    Map<String, Object> c = new LinkedHashMap<>();
                    c.put("id", call.id());
                    c.put("type", "function");
                    c.put("function", function);
                    calls.add(c);
                }
                view.put("tool_calls", calls);
            }
            if (!m.toolCallId().isEmpty()) {
                view.put("tool_call_id", m.toolCallId());
            }
            if (!m.reasoningContent().isEmpty()) {
                view.put("reasoning_content", m.reasoningContent());
            }
            out.add(view);
        }
        return out;
    }

    /** The client's message as sent, with each tool call's arguments (a JSON string on the wire) as the object they spell. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> asSent(ChatMessage m) {
        Map<String, Object> view = (Map<String, Object>) jinja(PythonJson.parse(m.wire()));
        if (view.get("tool_calls") instanceof List<?> calls) {
            for (int i = 0; i < calls.size() && i < m.toolCalls().size(); i++) {
                if (calls.get(i) instanceof Map<?, ?> call && call.get("function") instanceof Map<?, ?> function) {
                    ((Map<String, Object>) function)
                            .put(
                                    "arguments",
                                    jinja(PythonJson.arguments(m.toolCalls().get(i))));
                }
            }
        }
        return view;
    }

    private static List<Object> tools(List<ToolDefinition> tools) {
        List<Object> out = new ArrayList<>(tools.size());
        for (ToolDefinition t : tools) {
            out.add(jinja(t.openAiTree()));
        }
        return out;
    }

    /** A JSON tree as template values: mutable copies (templates may append to them), JSON null as None (Java null). */
    static Object jinja(Object v) {
        return switch (v) {
            case Map<?, ?> m -> {
                Map<String, Object> out = new LinkedHashMap<>();
                m.forEach((k, x) -> out.put(String.valueOf(k), jinja(x)));
                yield out;
            }
            case List<?> l -> {
                List<Object> out = new ArrayList<>(l.size());
                l.forEach(x -> out.add(jinja(x)));
                yield out;
            }
            case null -> null;
            default -> v == PythonJson.NULL ? null : v;
        };
    }
}
