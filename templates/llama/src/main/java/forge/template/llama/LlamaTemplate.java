package forge.template.llama;

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
import forge.template.toolkit.calls.LlamaToolCalls;
import forge.template.toolkit.calls.ToolCallSyntax;
import forge.template.toolkit.calls.ToolCallingTemplate;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Llama 3.1, 3.2 and 3.3: header-token turns, a system turn with the knowledge cut-off and today's
 * date, tools as indented JSON (in the first user turn unless {@code tools_in_user_message} is
 * false), one call per assistant turn as {@code {"name": ..., "parameters": ...}}, tool results as
 * {@code ipython} turns printed with {@code tojson}. 3.1 and 3.3 also know {@code builtin_tools}
 * ({@code <|python_tag|>name.call(...)} and {@code <|eom_id|>}); 3.2 falls back to the clock for
 * the date.
 *
 * <p>Options ({@code chat_template_kwargs}) read as the official template reads its variables:
 * {@code date_string}, {@code tools_in_user_message}, {@code custom_tools} and (3.1, 3.3)
 * {@code builtin_tools}. A {@code developer} message is a system message, as OpenAI means it.
 */
final class LlamaTemplate extends MustacheTemplate implements ToolCallingTemplate {

    static final String BOS = "<|begin_of_text|>";
    /** The date 3.1 and 3.3 print when none is given (and 3.2 has no clock). */
    static final String DEFAULT_DATE = "26 Jul 2024";
    /** strftime's "%d %b %Y" in the C locale, as 3.2's strftime_now("%d %b %Y") writes it. */
    static final DateTimeFormatter STRFTIME_D_B_Y = DateTimeFormatter.ofPattern("dd MMM yyyy", Locale.ROOT);

    private final boolean knowsBuiltinTools;
    private final String bos;
    private final Supplier<LocalDate> clock;

    /** The official templates' capabilities (checked against the golden corpus): content printed as a string. */
    static final TemplateCaps CAPS = new TemplateCaps(true, false, true);

    LlamaTemplate(String name, String bos, Supplier<LocalDate> clock) {
        super(name, LlamaTemplate.class, "llama", "llama3");
        this.knowsBuiltinTools = !name.equals(LlamaTemplates.LLAMA32);
        this.bos = bos.isEmpty() ? BOS : bos;
        this.clock = clock;
    }

    @Override
    public String render(ChatPrompt prompt) {
        Map<String, Object> options = prompt.options();
        List<ChatMessage> messages = new ArrayList<>(CAPS.fittedMessages(prompt));
        // custom_tools replaces tools when defined (even as null); no tools at all is `none`.
        Object tools = options.containsKey("custom_tools")
                ? options.get("custom_tools")
                : prompt.tools().isEmpty()
                        ? null
                        : prompt.tools().stream()
                                .map(ToolDefinition::openAiTree)
                                .toList();
        boolean hasTools = tools != null && tools != PythonJson.NULL;
        boolean toolsInUser = !options.containsKey("tools_in_user_message")
                || PythonValues.truthy(options.get("tools_in_user_message"));
        List<String> builtinTools = knowsBuiltinTools && options.containsKey("builtin_tools")
                ? strings(options.get("builtin_tools"))
                : null;

        Map<String, Object> scope = new HashMap<>();
        scope.put("bos", bos);
        scope.put("date", date(options));
        scope.put("environment", hasTools || builtinTools != null);
        scope.put("hasBuiltinTools", builtinTools != null);
        if (builtinTools != null) {
            scope.put(
                    "builtinTools",
                    String.join(
                            ", ",
                            builtinTools.stream()
                                    .filter(t -> !t.equals("code_interpreter"))
                                    .toList()));
        }
        List<String> toolJson = new ArrayList<>();
        if (hasTools) {
            for (Object t : iterable(tools)) {
                toolJson.add(PythonJson.dumps(t, 4) + "\n\n");
            }
        }
        scope.put("toolJson", toolJson);
        scope.put("toolsInSystem", hasTools && !toolsInUser);
        String system = "";
        if (isSystem(messages.getFirst())) {
            system = PythonText.strip(messages.removeFirst().content());
        }
        scope.put("system", system);
        if (hasTools && toolsInUser) {
            if (messages.isEmpty()) {
                throw new TemplateException(
                        "Cannot put tools in the first user message when there's no first user message!");
            }
            scope.put("toolsInUser", true);
            scope.put("firstUser", PythonText.strip(messages.removeFirst().content()));
        }
        List<Map<String, Object>> turns = new ArrayList<>();
        for (ChatMessage m : messages) {
            Map<String, Object> turn = new HashMap<>();
            if (m.role() == Role.TOOL) {
                // `content is iterable` holds for a string, so the template prints it with tojson.
                turn.put("role", "ipython");
                turn.put("body", PythonJson.quote(m.content()));
                turn.put("end", "<|eot_id|>");
            } else if (!m.toolCalls().isEmpty()) {
                if (m.toolCalls().size() != 1) {
                    throw new TemplateException("This model only supports single tool-calls at once!");
                }
                ToolCall call = m.toolCalls().getFirst();
                turn.put("role", "assistant");
                turn.put(
                        "body",
                        builtinTools != null && builtinTools.contains(call.name())
                                ? builtinCall(call)
                                : jsonCall(call));
                turn.put("end", builtinTools != null ? "<|eom_id|>" : "<|eot_id|>");
            } else {
                turn.put("role", isSystem(m) ? "system" : m.role().wire());
                turn.put("body", PythonText.strip(m.content()));
                turn.put("end", "<|eot_id|>");
            }
            turns.add(turn);
        }
        scope.put("turns", turns);
        scope.put("generationPrompt", prompt.addGenerationPrompt());
        return renderView(scope);
    }

    private String date(Map<String, Object> options) {
        if (options.containsKey("date_string")) {
            return PythonValues.str(options.get("date_string"));
        }
        return knowsBuiltinTools ? DEFAULT_DATE : STRFTIME_D_B_Y.format(clock.get());
    }

    private static boolean isSystem(ChatMessage m) {
        return m.role() == Role.SYSTEM || m.role() == Role.DEVELOPER;
    }

    private static String jsonCall(ToolCall call) {
        return "{\"name\": \"" + call.name() + "\", \"parameters\": " + PythonJson.dumps(PythonJson.arguments(call))
                + "}";
    }

    /** {@code <|python_tag|>name.call(key="value", ...)}: the template concatenates, so every value must be a string. */
    private static String builtinCall(ToolCall call) {
        StringBuilder sb =
                new StringBuilder(LlamaToolCalls.PYTHON_TAG).append(call.name()).append(".call(");
        if (!(PythonJson.arguments(call) instanceof Map<?, ?> args)) {
            throw new TemplateException("the arguments of built-in tool call '" + call.name() + "' are not an object");
        }
        boolean first = true;
        for (var e : args.entrySet()) {
            if (!(e.getValue() instanceof String v)) {
                throw new TemplateException("the argument '" + e.getKey() + "' of built-in tool call '" + call.name()
                        + "' is not a string; the template can only quote strings");
            }
            sb.append(first ? "" : ", ")
                    .append(e.getKey())
                    .append("=\"")
                    .append(v)
                    .append('"');
            first = false;
        }
        return sb.append(')').toString();
    }

    private static Iterable<?> iterable(Object v) {
        if (v instanceof List<?> l) {
            return l;
        }
        if (v instanceof Map<?, ?> m) {
            return m.keySet(); // iterating a dict yields its keys
        }
        throw new TemplateException("custom_tools must be a list of tools");
    }

    private static List<String> strings(Object v) {
        List<String> out = new ArrayList<>();
        if (v instanceof List<?> l) {
            l.forEach(x -> out.add(PythonValues.str(x)));
        } else if (v instanceof String s) {
            s.codePoints().forEach(cp -> out.add(Character.toString(cp))); // a string is iterable by characters
        } else if (v != null && v != PythonJson.NULL) {
            throw new TemplateException("builtin_tools must be a list of tool names");
        }
        return out;
    }

    /** {@inheritDoc} Its grammar admits one call only, even when {@code parallel}: the official templates refuse an assistant turn with more. */
    @Override
    public ToolCallSyntax toolCallSyntax() {
        return LlamaToolCalls.SYNTAX;
    }

    @Override
    public List<String> endOfTurn() {
        // <|eom_id|> ends a turn that called a built-in tool and waits for its result.
        return List.of("<|eot_id|>", "<|eom_id|>");
    }

    @Override
    public boolean rendersBos() {
        return true;
    }
}
