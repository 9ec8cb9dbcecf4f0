package forge.template.toolkit.calls;

import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.lib.text.Gbnf;
import forge.lib.text.PythonJson;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The XML syntax of Qwen 3.5 and Qwen3-Coder, read back into OpenAI calls and described as a
 * grammar:
 *
 * <pre>{@code
 * <tool_call>
 * <function=get_weather>
 * <parameter=city>
 * Paris
 * </parameter>
 * </function>
 * </tool_call>
 * }</pre>
 *
 * <p>Values are text; like llama.cpp's Qwen3-Coder parser ({@code common/parsers/qwen3-coder.cpp})
 * they are typed by the tool's parameter schema: a parameter whose schema does not allow a string
 * is read as JSON, a string-only parameter stays a string, and one that allows a string and other
 * types is read as JSON when the text is JSON of an allowed type, else kept as a string. A
 * parameter the schema does not name stays a string.
 *
 * {@snippet :
 * OutputParser p = QwenXmlToolCalls.SYNTAX.parser(new Reasoning("<think>", "</think>", true), tools);
 * p.feed("plan</think><tool_call>\n<function=f>\n<parameter=n>\n3\n</parameter>\n</function>\n</tool_call>");
 * // [Reasoning("plan"), ToolCallDelta(0, "call_…", "f", "{\"n\":3}")] when n is an integer
 * }
 */
public final class QwenXmlToolCalls extends MarkupToolCalls {

    /** The one instance. */
    public static final QwenXmlToolCalls SYNTAX = new QwenXmlToolCalls();

    static final String OPEN = "<tool_call>";
    static final String CLOSE = "</tool_call>";

    private QwenXmlToolCalls() {
        super(OPEN, CLOSE, "");
    }

    /** Calls are decoded whole, each value typed by the schema of the offered tool that names it. */
    @Override
    Function<String, List<ToolCall>> decoder(List<ToolDefinition> tools) {
        Map<String, ToolDefinition> byName = new LinkedHashMap<>();
        tools.forEach(t -> byName.put(t.name(), t));
        return block -> decode(block, byName);
    }

    /**
     * {@inheritDoc}
     *
     * <p>This syntax writes each argument as its own {@code <parameter=...>} block, not as one JSON
     * object, so {@code argumentRules} are not used: the grammar types each parameter from the
     * tool's schema itself. Parameters are written in the schema's order, required ones always,
     * optional ones when the model chooses: a string-typed value (or one that allows strings) is
     * any text without {@code </} in it, so the parser's search for {@code </parameter>} finds
     * exactly its end; an enum of strings is one of its values; numbers, integers, booleans,
     * null, objects and arrays are JSON of that type.
     */
    @Override
    public Optional<String> grammar(List<ToolDefinition> tools, Map<String, String> argumentRules, boolean parallel) {
        return tools.isEmpty() ? Optional.empty() : Optional.of(grammar(tools, parallel));
    }

    /**
     * Decodes the text between {@code <tool_call>} and {@code </tool_call>}: one function.
     *
     * @throws IllegalArgumentException when it is not one
     */
    static List<ToolCall> decode(String block, Map<String, ToolDefinition> tools) {
        String s = block.strip();
        if (!s.startsWith("<function=")) {
            throw new IllegalArgumentException("no <function=...> in tool call");
        }
        int gt = s.indexOf('>');
        if (gt < 0) {
            throw new IllegalArgumentException("unterminated <function=");
        }
        String name = s.substring("<function=".length(), gt).strip();
        if (name.isEmpty()) {
            throw new IllegalArgumentException("function without a name");
        }
        int end = s.lastIndexOf("</function>");
        String body = s.substring(gt + 1, end < 0 ? s.length() : end);
        Map<String, Object> args = new LinkedHashMap<>();
        int at = 0;
        while (true) {
            int open = body.indexOf("<parameter=", at);
            if (open < 0) {
                if (!body.substring(at).isBlank()) {
                    throw new IllegalArgumentException("text outside parameters in tool call");
                }
                break;
            }
            if (!body.substring(at, open).isBlank()) {
                throw new IllegalArgumentException("text outside parameters in tool call");
            }
            int close = body.indexOf('>', open);
            if (close < 0) {
                throw new IllegalArgumentException("unterminated <parameter=");
            }
            String param = body.substring(open + "<parameter=".length(), close).strip();
            int valueEnd = body.indexOf("</parameter>", close);
            String value = body.substring(close + 1, valueEnd < 0 ? body.length() : valueEnd);
            // The template writes "<parameter=x>\n" value "\n</parameter>": one newline each side is markup.
            if (value.startsWith("\n")) {
                value = value.substring(1);
            }
            if (value.endsWith("\n")) {
                value = value.substring(0, value.length() - 1);
            }
            args.put(param, typed(tools.get(name), param, value));
            at = valueEnd < 0 ? body.length() : valueEnd + "</parameter>".length();
        }
        return List.of(new ToolCall("", name, PythonJson.compact(args)));
    }

    private static Object typed(ToolDefinition tool, String param, String text) {
        Set<String> types = types(tool, param);
        if (types.isEmpty() || types.equals(Set.of("string"))) {
            return text;
        }
        Object json;
        try {
            json = PythonJson.parse(text.strip());
        } catch (IllegalArgumentException e) {
            return text; // what the model wrote, rather than losing the call
        }
        return types.contains(jsonType(json))
                        || (jsonType(json).equals("integer") && types.contains("number"))
                        || !types.contains("string")
                ? json
                : text;
    }

    private static String jsonType(Object v) {
        return switch (v) {
            case String s -> "string";
            case Boolean b -> "boolean";
            case Long l -> "integer";
            case BigInteger b -> "integer";
            case Double d -> "number";
            case Map<?, ?> m -> "object";
            case List<?> l -> "array";
            default -> "null";
        };
    }

    /** The JSON types the tool's schema allows for the parameter; empty when the tool (null: not offered) does not name it. */
    private static Set<String> types(ToolDefinition t, String param) {
        if (t == null
                || !(t.parameters().get("properties") instanceof Map<?, ?> props)
                || !(props.get(param) instanceof Map<?, ?> schema)) {
            return Set.of();
        }
        return schemaTypes(schema);
    }

    /** The types a schema allows: its {@code type} (one or a list), an {@code enum}'s values, or any of {@code anyOf}/{@code oneOf}. */
    static Set<String> schemaTypes(Map<?, ?> schema) {
        Set<String> out = new LinkedHashSet<>();
        Object type = schema.get("type");
        if (type instanceof String s) {
            out.add(s);
        } else if (type instanceof List<?> l) {
            l.forEach(o -> out.add(String.valueOf(o)));
        } else if (schema.get("enum") instanceof List<?> values) {
            values.forEach(v -> out.add(jsonType(v)));
        } else if (schema.get("anyOf") instanceof List<?> l || schema.get("oneOf") instanceof List<?> l2) {
            List<?> alts = schema.get("anyOf") instanceof List<?> a ? a : (List<?>) schema.get("oneOf");
            for (Object alt : alts) {
                if (alt instanceof Map<?, ?> m) {
                    Set<String> sub = schemaTypes(m);
                    if (sub.isEmpty()) {
                        return Set.of("string", "number", "integer", "boolean", "object", "array", "null");
                    }
                    out.addAll(sub);
                }
            }
        } else {
            // No type: any JSON value, the string included.
            return Set.of("string", "number", "integer", "boolean", "object", "array", "null");
        }
        return out;
    }

    private static String grammar(List<ToolDefinition> tools, boolean parallel) {
        StringBuilder g = new StringBuilder();
        g.append("root ::= tc-call")
                .append(parallel ? " (\"\\n\" tc-call)*" : "")
                .append('\n');
        g.append("tc-call ::= \"<tool_call>\\n\" (");
        for (int i = 0; i < tools.size(); i++) {
            g.append(i > 0 ? " | " : "").append("tc-fn-").append(i);
        }
        g.append(") \"</tool_call>\"\n");
        for (int i = 0; i < tools.size(); i++) {
            ToolDefinition t = tools.get(i);
            g.append("tc-fn-").append(i).append(" ::= ").append(Gbnf.literal("<function=" + t.name() + ">\n"));
            Set<?> required = t.parameters().get("required") instanceof List<?> r ? new LinkedHashSet<>(r) : Set.of();
            if (t.parameters().get("properties") instanceof Map<?, ?> props) {
                for (var e : props.entrySet()) {
                    String pname = String.valueOf(e.getKey());
                    String value = e.getValue() instanceof Map<?, ?> schema ? valueRule(schema) : "tc-text";
                    String param = "(" + Gbnf.literal("<parameter=" + pname + ">\n") + " " + value
                            + " \"\\n</parameter>\\n\")";
                    g.append(' ').append(param).append(required.contains(pname) ? "" : "?");
                }
            }
            g.append(" \"</function>\\n\"\n");
        }
        g.append("""
                tc-text ::= ([^<] | "<" [^/])*
                tc-ws ::= [ \\t\\n]*
                tc-string ::= "\\"" ([^"\\\\\\x7F\\x00-\\x1F] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4}))* "\\""
                tc-number ::= "-"? ([0-9] | [1-9] [0-9]{0,15}) ("." [0-9]+)? ([eE] [-+]? [0-9]{1,15})?
                tc-integer ::= "-"? ([0-9] | [1-9] [0-9]{0,15})
                tc-boolean ::= "true" | "false"
                tc-null ::= "null"
                tc-value ::= tc-object | tc-array | tc-string | tc-number | tc-boolean | tc-null
                tc-object ::= "{" tc-ws (tc-string tc-ws ":" tc-ws tc-value tc-ws ("," tc-ws tc-string tc-ws ":" tc-ws tc-value tc-ws)*)? "}"
                tc-array ::= "[" tc-ws (tc-value tc-ws ("," tc-ws tc-value tc-ws)*)? "]"
                """);
        return g.toString();
    }

    private static String valueRule(Map<?, ?> schema) {
        if (schema.get("enum") instanceof List<?> values
                && !values.isEmpty()
                && values.stream().allMatch(v -> v instanceof String)) {
            List<String> alts = new ArrayList<>();
            for (Object v : values) {
                String s = (String) v;
                if (s.contains("</") || s.contains("\n")) {
                    return "tc-text";
                }
                alts.add(Gbnf.literal(s));
            }
            return "(" + String.join(" | ", alts) + ")";
        }
        Set<String> types = schemaTypes(schema);
        if (types.contains("string")) {
            return "tc-text";
        }
        List<String> alts = new ArrayList<>();
        for (String t : types) {
            switch (t) {
                case "number" -> alts.add("tc-number");
                case "integer" -> alts.add("tc-integer");
                case "boolean" -> alts.add("tc-boolean");
                case "null" -> alts.add("tc-null");
                case "object" -> alts.add("tc-object");
                case "array" -> alts.add("tc-array");
                default -> {
                    return "tc-text";
                }
            }
        }
        return alts.isEmpty() ? "tc-text" : "(" + String.join(" | ", alts) + ")";
    }
}
