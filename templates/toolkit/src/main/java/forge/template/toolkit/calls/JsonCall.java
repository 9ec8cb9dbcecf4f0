package forge.template.toolkit.calls;

import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.lib.text.Gbnf;
import forge.lib.text.PythonJson;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The JSON call {@code {"name": "f", "<key>": {...}}} that the Hermes/Qwen and Llama 3 syntaxes
 * share (under the keys {@code arguments} and {@code parameters}): its decoder and its grammar
 * rule, one of each for both.
 *
 * {@snippet :
 * JsonCall.decode(" {\"name\": \"f\", \"arguments\": {\"a\": 1}} ", "arguments");   // ToolCall("", "f", "{\"a\":1}")
 * JsonCall.rule("<tool_call>\n", "arguments", "\n</tool_call>", tools, Map.of("f", "f-args"));
 * // tc-call ::= "<tool_call>\n{\"name\": " ("\"f\", \"arguments\": " f-args) "}\n</tool_call>"
 * }
 */
public final class JsonCall {

    private JsonCall() {}

    /**
     * Decodes {@code {"name": ..., "<argumentsKey>": {...}}} (surrounding blanks allowed, the key
     * missing: no arguments) as one call with compact arguments.
     *
     * @throws IllegalArgumentException when the text is not such an object
     */
    public static ToolCall decode(String text, String argumentsKey) {
        return decode(text, List.of(argumentsKey), false);
    }

    /**
     * As {@link #decode(String, String)}, the arguments under the first of {@code argumentKeys}
     * present, and, when {@code quotedArguments}, also as a string of JSON (some fine-tunes quote them).
     */
    static ToolCall decode(String text, List<String> argumentKeys, boolean quotedArguments) {
        if (!(PythonJson.parse(text.strip()) instanceof Map<?, ?> m) || !(m.get("name") instanceof String name)) {
            throw new IllegalArgumentException("not a tool call: " + text);
        }
        Object args = argumentKeys.stream()
                .filter(m::containsKey)
                .findFirst()
                .<Object>map(m::get)
                .orElse(Map.of());
        if (quotedArguments && args instanceof String s) {
            args = PythonJson.parse(s);
        }
        if (!(args instanceof Map<?, ?>)) {
            throw new IllegalArgumentException("arguments are not an object: " + text);
        }
        return new ToolCall("", name, PythonJson.compact(args));
    }

    /**
     * The GBNF rule {@code tc-call}: {@code open}, then {@code {"name": "f", "<argumentsKey>": ARGS}}
     * for one of the tools (its name as {@code json.dumps} quotes it, {@code ARGS} its argument
     * rule), then {@code close}; one line, ending in a newline.
     *
     * @throws IllegalArgumentException when a tool has no argument rule
     */
    public static String rule(
            String open,
            String argumentsKey,
            String close,
            List<ToolDefinition> tools,
            Map<String, String> argumentRules) {
        return "tc-call ::= " + Gbnf.literal(open + "{\"name\": ") + " ("
                + perTool(
                        tools,
                        argumentRules,
                        t -> Gbnf.literal(PythonJson.quote(t.name()) + ", " + PythonJson.quote(argumentsKey) + ": "))
                + ") " + Gbnf.literal("}" + close) + "\n";
    }

    /**
     * One alternative per tool, joined by {@code |}: {@code head} of the tool, then the caller's
     * rule for its JSON arguments (every syntax's arguments are JSON, whatever surrounds them).
     *
     * @throws IllegalArgumentException when a tool has no argument rule
     */
    static String perTool(
            List<ToolDefinition> tools, Map<String, String> argumentRules, Function<ToolDefinition, String> head) {
        StringBuilder g = new StringBuilder();
        for (ToolDefinition t : tools) {
            String rule = argumentRules.get(t.name());
            if (rule == null) {
                throw new IllegalArgumentException("no argument rule for tool " + t.name());
            }
            g.append(g.isEmpty() ? "" : " | ").append(head.apply(t)).append(' ').append(rule);
        }
        return g.toString();
    }
}
