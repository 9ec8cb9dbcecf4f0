package forge.template.toolkit.calls;

import forge.api.template.OutputParser;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.lib.text.Gbnf;
import forge.lib.text.PythonJson;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Llama 3.x's syntax: a whole answer that is one JSON call {@code {"name": ..., "parameters": ...}},
 * or what follows {@code <|python_tag|>}: such a JSON call, a built-in
 * {@code name.call(key="value", ...)}, or Python code for the {@code python} tool (what Llama 3.1
 * writes for its code interpreter).
 *
 * <p>The JSON call's parameters stream as the model writes them; text after the call's object is
 * kept as content. A JSON answer that is not a call stays content, whole. The grammar writes one
 * call, even when parallel calls are allowed: the official templates refuse an assistant turn
 * with more.
 *
 * {@snippet :
 * OutputParser p = LlamaToolCalls.SYNTAX.parser(Reasoning.NONE, tools);
 * p.feed("<|python_tag|>brave_search.call(query=\"cats\")");
 * p.finish();   // [ToolCallDelta(0, "call_…", "brave_search", "{\"query\":\"cats\"}")]
 * }
 */
public final class LlamaToolCalls implements ToolCallSyntax {

    /** The one instance. */
    public static final LlamaToolCalls SYNTAX = new LlamaToolCalls();

    /** Opens a call (or code) that runs to the end of the output. */
    public static final String PYTHON_TAG = "<|python_tag|>";

    private static final String KEY = "parameters";

    private static final Pattern BUILTIN_CALL = Pattern.compile("(?s)\\s*(\\w+)\\.call\\((.*)\\)\\s*");
    private static final Pattern BUILTIN_KEY = Pattern.compile("\\s*(\\w+)\\s*=\\s*");

    private LlamaToolCalls() {}

    /** The JSON call's opening as the grammar writes it; the parser also reads what follows {@code <|python_tag|>}. */
    @Override
    public List<String> triggers() {
        return List.of("{\"name\": ", PYTHON_TAG);
    }

    @Override
    public OutputParser parser(Reasoning reasoning, List<ToolDefinition> tools) {
        return new MarkupParser(new MarkupParser.Syntax(reasoning, PYTHON_TAG, "", true, LlamaToolCalls::decode, KEY));
    }

    /** {@code {"name": "f", "parameters": ARGS}}, optionally after {@code <|python_tag|>}; one call. */
    @Override
    public Optional<String> grammar(List<ToolDefinition> tools, Map<String, String> argumentRules, boolean parallel) {
        if (tools.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("root ::= " + Gbnf.literal(PYTHON_TAG) + "? tc-call\n"
                + JsonCall.rule("", KEY, "", tools, argumentRules));
    }

    /**
     * A call as Llama 3 writes one: {@code {"name": ..., "parameters": {...}}} (also with
     * {@code "arguments"}, quoted arguments or a leading {@code "type": "function"}), a built-in
     * {@code name.call(key="value", ...)}, or Python code for the {@code python} tool.
     */
    static List<ToolCall> decode(String text) {
        String t = text.strip();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("empty call");
        }
        if (t.startsWith("{")) {
            return List.of(JsonCall.decode(t, List.of(KEY, "arguments"), true));
        }
        Matcher b = BUILTIN_CALL.matcher(t);
        if (b.matches()) {
            return List.of(new ToolCall("", b.group(1), PythonJson.compact(builtinArguments(b.group(2)))));
        }
        return List.of(new ToolCall("", "python", PythonJson.compact(Map.of("code", t))));
    }

    /** {@code key="value", n=3}: values are JSON literals (strings in double quotes). */
    private static Map<String, Object> builtinArguments(String text) {
        Map<String, Object> args = new LinkedHashMap<>();
        int pos = 0;
        while (pos < text.length() && !text.substring(pos).isBlank()) {
            Matcher k = BUILTIN_KEY.matcher(text).region(pos, text.length());
            if (!k.lookingAt()) {
                throw new IllegalArgumentException("not a built-in call's arguments: " + text);
            }
            pos = k.end();
            int end;
            if (pos < text.length() && text.charAt(pos) == '"') {
                end = pos + 1;
                while (end < text.length() && text.charAt(end) != '"') {
                    end += text.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(end + 1, text.length());
            } else {
                end = text.indexOf(',', pos);
                end = end < 0 ? text.length() : end;
            }
            String literal = text.substring(pos, end).strip();
            Object value;
            try {
                value = PythonJson.parse(literal);
            } catch (IllegalArgumentException e) {
                value = literal;
            }
            args.put(k.group(1), value);
            pos = end;
            while (pos < text.length() && (text.charAt(pos) == ',' || Character.isWhitespace(text.charAt(pos)))) {
                pos++;
            }
        }
        return args;
    }
}
