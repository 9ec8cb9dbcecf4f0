package forge.template.toolkit.calls;

import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.lib.text.Gbnf;
import forge.lib.text.PythonJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Kimi K2's syntax: one section of calls,
 * {@code <|tool_calls_section_begin|>} then, per call,
 * {@code <|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}<|tool_call_end|>},
 * then {@code <|tool_calls_section_end|>}. The id is kept as the model wrote it (llama.cpp does
 * the same); a section cut short by the end of generation still yields its calls, and markup that
 * is not a call is kept as text.
 *
 * {@snippet :
 * OutputParser p = KimiToolCalls.SYNTAX.parser(Reasoning.NONE, tools);
 * p.feed("<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>"
 *         + "<|tool_calls_section_end|>");   // [ToolCallDelta(0, "functions.f:0", "f", "{}")]
 * }
 */
public final class KimiToolCalls extends MarkupToolCalls {

    /** The one instance. */
    public static final KimiToolCalls SYNTAX = new KimiToolCalls();

    /** Opens the section of calls. */
    public static final String SECTION_BEGIN = "<|tool_calls_section_begin|>";
    /** Closes it. */
    public static final String SECTION_END = "<|tool_calls_section_end|>";
    /** Opens one call, its id next. */
    public static final String CALL_BEGIN = "<|tool_call_begin|>";
    /** Between a call's id and its JSON arguments. */
    public static final String ARGS_BEGIN = "<|tool_call_argument_begin|>";
    /** Closes one call. */
    public static final String CALL_END = "<|tool_call_end|>";

    private KimiToolCalls() {
        super(SECTION_BEGIN, SECTION_END, "");
    }

    @Override
    Function<String, List<ToolCall>> decoder(List<ToolDefinition> tools) {
        return KimiToolCalls::decode;
    }

    /** The section with one call ({@code parallel}: one or more), ids {@code functions.NAME:IDX}, the JSON arguments by the caller's rules. */
    @Override
    public Optional<String> grammar(List<ToolDefinition> tools, Map<String, String> argumentRules, boolean parallel) {
        if (tools.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder g = new StringBuilder();
        g.append("root ::= ")
                .append(Gbnf.literal(SECTION_BEGIN))
                .append(" tc-call")
                .append(parallel ? " tc-call*" : "")
                .append(' ')
                .append(Gbnf.literal(SECTION_END))
                .append('\n');
        g.append("tc-call ::= ")
                .append(Gbnf.literal(CALL_BEGIN + "functions."))
                .append(" (")
                .append(JsonCall.perTool(
                        tools,
                        argumentRules,
                        t -> Gbnf.literal(t.name() + ":") + " tc-index " + Gbnf.literal(ARGS_BEGIN)))
                .append(") ")
                .append(Gbnf.literal(CALL_END))
                .append('\n');
        g.append("tc-index ::= [0-9] | [1-9] [0-9]{1,5}\n");
        return Optional.of(g.toString());
    }

    /**
     * The calls of one section.
     *
     * @throws IllegalArgumentException when the section holds anything else
     */
    static List<ToolCall> decode(String section) {
        List<ToolCall> calls = new ArrayList<>();
        String rest = section.strip();
        while (!rest.isEmpty()) {
            if (!rest.startsWith(CALL_BEGIN)) {
                throw new IllegalArgumentException("expected " + CALL_BEGIN + " in tool-call section");
            }
            rest = rest.substring(CALL_BEGIN.length());
            int args = rest.indexOf(ARGS_BEGIN);
            if (args < 0) {
                throw new IllegalArgumentException("tool call without " + ARGS_BEGIN);
            }
            String id = rest.substring(0, args).strip();
            rest = rest.substring(args + ARGS_BEGIN.length());
            int end = rest.indexOf(CALL_END);
            String json = end < 0 ? rest : rest.substring(0, end);
            rest = end < 0 ? "" : rest.substring(end + CALL_END.length()).strip();
            String fn = id.startsWith("functions.") ? id.substring("functions.".length()) : id;
            int colon = fn.lastIndexOf(':');
            if (colon >= 0 && fn.substring(colon + 1).matches("\\d+")) {
                fn = fn.substring(0, colon);
            }
            if (fn.isEmpty() || !(PythonJson.parse(json.strip()) instanceof Map<?, ?> tree)) {
                throw new IllegalArgumentException("not a tool call: " + id);
            }
            calls.add(new ToolCall(id, fn, PythonJson.compact(tree)));
        }
        return calls;
    }
}
