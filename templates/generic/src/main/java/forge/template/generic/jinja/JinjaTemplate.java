package forge.template.generic.jinja;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.InterpreterFactory;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.interpret.errorcategory.BasicTemplateErrorCategory;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import com.hubspot.jinjava.tree.Node;
import forge.api.TemplateException;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.OutputParser;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.template.toolkit.PythonJson;
import forge.template.toolkit.calls.HermesToolCalls;
import forge.template.toolkit.calls.Reasoning;
import java.time.Clock;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import jinjava.javax.el.CompositeELResolver;
import jinjava.javax.el.ExpressionFactory;

/**
 * A model's own Jinja chat template ({@code tokenizer.chat_template}), rendered with Jinjava the
 * way transformers' {@code apply_chat_template} renders it with Jinja2: trim_blocks and
 * lstrip_blocks, the variables {@code messages}, {@code tools} ({@code None} when there are
 * none), {@code add_generation_prompt}, {@code bos_token}, {@code eos_token} and every
 * {@code chat_template_kwargs} entry, the globals {@code raise_exception} and
 * {@code strftime_now}, and Jinja2's semantics where Jinjava's differ (see the package notes).
 * A template that fails where Jinja2 raises fails here too, with Python's message.
 *
 * <p>The template is parsed once, when the model's template is created; each render gets a fresh
 * interpreter and context over the shared, read-only parse tree, so renders run concurrently.
 */
public final class JinjaTemplate implements ChatTemplate {

    /** End-of-turn markers of the common chat formats, kept when the template writes them. */
    private static final List<String> KNOWN_END_MARKERS = List.of(
            "<|im_end|>", "<|eot_id|>", "<|end_of_text|>", "<end_of_turn>", "<|end|>", "<|endoftext|>",
            "<|eom_id|>", "</s>", "<|im_end|>", "<｜end▁of▁sentence｜>", "<|return|>", "<|turn_end|>");

    /** How deep macros may call themselves; Python's recursion limit stops Jinja2 not far beyond. */
    static final int MAX_MACRO_DEPTH = 100;

    private final String name;
    private final String source;
    private final String bosToken;
    private final String eosToken;
    private final Jinjava jinjava;
    private final JinjavaConfig config;
    private final Node root;
    private final List<String> endOfTurn;
    private final Clock clock;

    /**
     * Compiles {@code source}.
     *
     * @throws TemplateException when Jinjava cannot parse it
     */
    public JinjaTemplate(String name, String source, String bosToken, String eosToken) {
        this(name, source, bosToken, eosToken, Clock.systemDefaultZone());
    }

    /** With the clock that {@code strftime_now} reads (tests fix it). */
    JinjaTemplate(String name, String source, String bosToken, String eosToken, Clock clock) {
        this.clock = clock;
        this.name = name;
        this.source = source;
        this.bosToken = bosToken;
        this.eosToken = eosToken;
        this.config = config();
        this.jinjava = new Jinjava(config) {
            private final ExpressionFactory expressions = PythonParser.factory();

            @Override
            public ExpressionFactory getExpressionFactory() {
                return expressions;
            }
        };
        var globals = jinjava.getGlobalContext();
        globals.registerFunction(new ELFunctionDefinition("", "raise_exception", JinjaFunctions.class, "raiseException", Object.class));
        globals.registerFunction(new ELFunctionDefinition("", "strftime_now", JinjaFunctions.class, "strftimeNow", String.class));
        globals.registerFunction(new ELFunctionDefinition("", "namespace", JinjaFunctions.class, "namespace", Object[].class));
        PythonFilters.all().forEach(globals::registerFilter);
        PythonTests.all().forEach(globals::registerExpTest);
        globals.registerTag(new PythonTags.For());
        globals.registerTag(new PythonTags.If());
        globals.registerTag(new PythonTags.FilterBlock());
        // Jinja2's globals are variables too: templates ask `strftime_now is defined` before calling it
        for (String function : List.of("raise_exception", "strftime_now", "namespace", "range")) {
            globals.put(function, new JinjaFunctions.Global(function));
        }
        // Jinja2's literals none and None: Python's None, which Undefined (Java null) is not
        globals.put("none", PyNone.NONE);
        globals.put("None", PyNone.NONE);
        JinjavaInterpreter parser = jinjava.newInterpreter();
        JinjavaInterpreter.pushCurrent(parser);
        try {
            this.root = parser.parse(WhitespaceControl.apply(source));
        } finally {
            JinjavaInterpreter.popCurrent();
        }
        List<TemplateError> fatal = fatal(parser.getErrors());
        if (!fatal.isEmpty()) {
            throw new TemplateException("the model's chat template does not parse: " + fatal.getFirst().getMessage());
        }
        this.endOfTurn = endMarkers(source, eosToken);
    }

    private static JinjavaConfig config() {
        return JinjavaConfig.newBuilder()
                // trim_blocks and lstrip_blocks as transformers sets them, applied by WhitespaceControl
                // with Jinja2's rules (Jinjava's lstrip also took spaces after text on the same line)
                .withTrimBlocks(false)
                .withLstripBlocks(false)
                // Jinja2's semantics where Jinjava's own code still runs (its filters, set, macros):
                // dict literals evaluate their keys, iterating a dict yields keys, precedence is Python's.
                .withLegacyOverrides(LegacyOverrides.newBuilder()
                        .withParseWhitespaceControlStrictly(true)
                        .withEvaluateMapKeys(true)
                        .withIterateOverMapKeys(true)
                        .withKeepNullableLoopValues(true)
                        .withUseNaturalOperatorPrecedence(true)
                        .withUsePyishObjectMapper(true)
                        .withAllowAdjacentTextNodes(true)
                        .build())
                .withElResolver(new CompositeELResolver() {
                    {
                        add(new PythonMethods());
                        add(JinjavaInterpreterResolver.DEFAULT_RESOLVER_READ_WRITE);
                    }
                })
                .withInterperterFactory(new PythonPrinting())
                .withMaxOutputSize(64L << 20)
                // Jinjava renders a printed value again when it holds '{{' or '{%': a message saying
                // "{{ 7 * 7 }}" printed 49, and a template's own '{{' in a string literal failed
                .withNestedInterpretationEnabled(false)
                // Jinja2 lets a macro call itself (Gemma 4 formats nested JSON so); Python's stack
                // bounds the depth, here a limit the render fails past (see render)
                .withEnableRecursiveMacroCalls(true)
                .withMaxMacroRecursionDepth(MAX_MACRO_DEPTH)
                .build();
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

    /** The model's template writes Hermes-style {@code <tool_call>} blocks: its calls are read and forced as such. */
    @Override
    public OutputParser parser(ChatPrompt prompt) {
        return HermesToolCalls.SYNTAX.usedBy(source) ? HermesToolCalls.SYNTAX.parserWhenOffered(Reasoning.NONE, prompt.tools())
                : OutputParser.PLAIN.get();
    }

    /** Empty unless the template writes Hermes-style {@code <tool_call>} blocks: any other syntax is unknown here. */
    @Override
    public Optional<String> toolCallGrammar(List<ToolDefinition> tools, Map<String, String> argumentRules, boolean parallel) {
        return HermesToolCalls.SYNTAX.usedBy(source) ? HermesToolCalls.SYNTAX.grammar(tools, argumentRules, parallel) : Optional.empty();
    }

    @Override
    public List<String> toolCallTriggers() {
        return HermesToolCalls.SYNTAX.usedBy(source) ? HermesToolCalls.SYNTAX.triggers() : List.of();
    }

    @Override
    public boolean rendersBos() {
        return !bosToken.isEmpty() && source.contains("bos_token");
    }

    @Override
    public String render(ChatPrompt prompt) {
        List<Object> raised = new ArrayList<>(1);
        Map<String, Object> bindings = new HashMap<>();
        for (Map.Entry<String, Object> option : prompt.options().entrySet()) {
            bindings.put(option.getKey(), jinja(option.getValue()));
        }
        bindings.put("messages", messages(prompt.messages()));
        // transformers passes tools=None when there are none: templates test `if tools`, and some iterate it regardless.
        bindings.put("tools", prompt.tools().isEmpty() ? PyNone.NONE : tools(prompt.tools()));
        bindings.put("add_generation_prompt", prompt.addGenerationPrompt());
        bindings.put("bos_token", bosToken);
        bindings.put("eos_token", eosToken);
        bindings.put(JinjaFunctions.RAISED, raised);
        bindings.put(JinjaFunctions.NOW, LocalDateTime.now(clock));

        Context context = new Context(jinjava.getGlobalContextCopy(), bindings, config.getDisabled());
        JinjavaInterpreter interpreter = config.getInterpreterFactory().newInstance(jinjava, context, config);
        String out;
        JinjavaInterpreter.pushCurrent(interpreter);
        try {
            out = interpreter.render(root);
        } catch (RuntimeException e) {
            if (!raised.isEmpty()) {
                throw new TemplateException(String.valueOf(raised.getFirst()));
            }
            throw new TemplateException("the model's chat template failed: " + reason(e, e.getMessage()), e);
        } finally {
            JinjavaInterpreter.popCurrent();
        }
        if (!raised.isEmpty()) {
            throw new TemplateException(String.valueOf(raised.getFirst()));
        }
        List<TemplateError> fatal = fatal(interpreter.getErrors());
        if (fatal.isEmpty() && interpreter.getErrors().stream().anyMatch(e -> e.getCategory() == BasicTemplateErrorCategory.CYCLE_DETECTED)) {
            // Jinjava stops a runaway macro with a warning and renders on; Python raises
            throw new TemplateException("the model's chat template failed: maximum recursion depth exceeded in a macro");
        }
        if (!fatal.isEmpty()) {
            TemplateError first = fatal.getFirst();
            throw new TemplateException("the model's chat template failed: " + reason(first.getException(), first.getMessage()));
        }
        return out;
    }

    /** Python's own words when the template did what Python refuses ({@code 'NoneType' object is not iterable}). */
    private static String reason(Throwable e, String otherwise) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof PythonValues.PythonError python) {
                return python.getMessage();
            }
        }
        return otherwise;
    }

    private static List<TemplateError> fatal(List<TemplateError> errors) {
        return errors.stream().filter(e -> e.getSeverity() == TemplateError.ErrorType.FATAL).toList();
    }

    /** Messages as transformers hands them over: OpenAI's JSON shape with parsed arguments. */
    private static List<Object> messages(List<ChatMessage> messages) {
        List<Object> out = new ArrayList<>(messages.size());
        for (ChatMessage m : messages) {
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

    private static List<Object> tools(List<ToolDefinition> tools) {
        List<Object> out = new ArrayList<>(tools.size());
        for (ToolDefinition t : tools) {
            out.add(jinja(t.openAiTree()));
        }
        return out;
    }

    /** A JSON tree as template values: mutable copies, JSON null as Python's None. */
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
            case null -> PyNone.NONE;
            default -> v == PythonJson.NULL ? PyNone.NONE : v;
        };
    }

    /** Interpreters that print values as Python's {@code str()} does: {@code True}, {@code None}, {@code {'a': 1}}. */
    private static final class PythonPrinting implements InterpreterFactory {
        @Override
        public JinjavaInterpreter newInstance(JinjavaInterpreter orig) {
            return new Printer(orig);
        }

        @Override
        public JinjavaInterpreter newInstance(Jinjava application, Context context, JinjavaConfig renderConfig) {
            return new Printer(application, context, renderConfig);
        }
    }

    private static final class Printer extends JinjavaInterpreter {
        Printer(JinjavaInterpreter orig) {
            super(orig);
        }

        Printer(Jinjava application, Context context, JinjavaConfig config) {
            super(application, context, config);
        }

        @Override
        public String getAsString(Object object) {
            return PythonValues.str(object);
        }
    }
}
