package forge.template.toolkit.calls;

import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.lib.text.Gbnf;
import forge.lib.text.PythonJson;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Gemma 4's syntax: {@code <|tool_call>call:NAME{key:value,...}<tool_call|>}, where strings are
 * quoted with {@code <|"|>}, keys are bare and numbers, {@code true}, {@code false} and
 * {@code null} are JSON's (llama.cpp's gemma4 rules; {@code None}, as the template prints a Python
 * null in history, is read as {@code null} too). Broken markup is kept as content rather than lost.
 *
 * <p>The notation is not JSON, so the grammar cannot use the caller's JSON argument rules: a
 * generic Gemma value grammar stands in for them, as in llama.cpp.
 *
 * {@snippet :
 * OutputParser p = Gemma4ToolCalls.SYNTAX.parser(Reasoning.NONE, tools);
 * p.feed("<|tool_call>call:get_weather{city:<|\"|>Oslo<|\"|>,days:2}<tool_call|>");
 * // [ToolCallDelta(0, "call_…", "get_weather", "{\"city\":\"Oslo\",\"days\":2}")]
 * }
 */
public final class Gemma4ToolCalls extends MarkupToolCalls {

    /** The one instance. */
    public static final Gemma4ToolCalls SYNTAX = new Gemma4ToolCalls();

    /** Opens a call. */
    public static final String CALL_OPEN = "<|tool_call>";
    /** Closes it. */
    public static final String CALL_CLOSE = "<tool_call|>";
    /** Gemma 4's string quote, on both sides of a string. */
    public static final String Q = "<|\"|>";

    private Gemma4ToolCalls() {
        super(CALL_OPEN, CALL_CLOSE, "");
    }

    @Override
    Function<String, List<ToolCall>> decoder(List<ToolDefinition> tools) {
        return block -> List.of(Reader.decode(block));
    }

    /** {@code <|tool_call>call:NAME{...}<tool_call|>}, the arguments in Gemma's notation; several calls follow each other. */
    @Override
    public Optional<String> grammar(List<ToolDefinition> tools, Map<String, String> argumentRules, boolean parallel) {
        if (tools.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder g = new StringBuilder();
        g.append("root ::= tc-call").append(parallel ? "+" : "").append('\n');
        g.append("tc-call ::= \"<|tool_call>call:\" (");
        for (int i = 0; i < tools.size(); i++) {
            g.append(i > 0 ? " | " : "").append(Gbnf.literal(tools.get(i).name()));
        }
        g.append(") tc-dict \"<tool_call|>\"\n");
        g.append("tc-dict ::= \"{\" tc-ws ( tc-kv ( \",\" tc-ws tc-kv )* tc-ws )? \"}\"\n");
        g.append("tc-kv ::= [^:}<\"{,]+ \":\" tc-ws tc-value\n");
        g.append("tc-value ::= tc-string | tc-dict | tc-array | tc-number | \"true\" | \"false\" | \"null\"\n");
        g.append(
                "tc-string ::= \"<|\\\"|>\" ( [^<] | \"<\" [^|] | \"<|\" [^\"] | \"<|\\\"\" [^|] | \"<|\\\"|\" [^>] )* \"<|\\\"|>\"\n");
        g.append("tc-array ::= \"[\" tc-ws ( tc-value ( \",\" tc-ws tc-value )* tc-ws )? \"]\"\n");
        g.append("tc-number ::= \"-\"? [0-9]+ ( \".\" [0-9]+ )? ( [eE] [-+]? [0-9]+ )?\n");
        g.append("tc-ws ::= [ \\t\\n]*\n");
        return Optional.of(g.toString());
    }

    /** Reads one call, the text between the markers. */
    private static final class Reader {
        private final String s;
        private int pos;

        private Reader(String s, int pos) {
            this.s = s;
            this.pos = pos;
        }

        /** @throws IllegalArgumentException when the text is not a call */
        static ToolCall decode(String block) {
            String t = block.strip();
            if (!t.startsWith("call:")) {
                throw new IllegalArgumentException("not a Gemma call: " + t);
            }
            int brace = t.indexOf('{');
            if (brace < 0) {
                throw new IllegalArgumentException("a Gemma call without arguments: " + t);
            }
            String name = t.substring("call:".length(), brace).strip();
            if (name.isEmpty()) {
                throw new IllegalArgumentException("a Gemma call without a name: " + t);
            }
            Reader r = new Reader(t, brace);
            Object args = r.dict();
            r.ws();
            if (r.pos != t.length()) {
                throw new IllegalArgumentException("text after a Gemma call's arguments: " + t);
            }
            return new ToolCall("", name, PythonJson.compact(args));
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("Gemma call at offset " + pos + ": " + what + " in " + s);
        }

        private void ws() {
            while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
                pos++;
            }
        }

        private void expect(char c) {
            if (pos >= s.length() || s.charAt(pos) != c) {
                throw error("expected '" + c + "'");
            }
            pos++;
        }

        private Object value() {
            ws();
            if (s.startsWith(Q, pos)) {
                int end = s.indexOf(Q, pos + Q.length());
                if (end < 0) {
                    throw error("unterminated string");
                }
                String v = s.substring(pos + Q.length(), end);
                pos = end + Q.length();
                return v;
            }
            if (pos >= s.length()) {
                throw error("missing value");
            }
            return switch (s.charAt(pos)) {
                case '{' -> dict();
                case '[' -> array();
                default -> scalar();
            };
        }

        private Map<String, Object> dict() {
            expect('{');
            Map<String, Object> m = new LinkedHashMap<>();
            ws();
            if (pos < s.length() && s.charAt(pos) == '}') {
                pos++;
                return Collections.unmodifiableMap(m);
            }
            while (true) {
                ws();
                int colon = pos;
                while (colon < s.length() && s.charAt(colon) != ':' && s.charAt(colon) != '}') {
                    colon++;
                }
                if (colon >= s.length() || s.charAt(colon) != ':' || colon == pos) {
                    throw error("expected a key");
                }
                String key = s.substring(pos, colon).strip();
                if (key.startsWith(Q) && key.endsWith(Q) && key.length() >= 2 * Q.length()) {
                    key = key.substring(Q.length(), key.length() - Q.length()); // escape_keys=True spelling
                }
                pos = colon + 1;
                m.put(key, value());
                ws();
                if (pos < s.length() && s.charAt(pos) == ',') {
                    pos++;
                    continue;
                }
                expect('}');
                return Collections.unmodifiableMap(m);
            }
        }

        private List<Object> array() {
            expect('[');
            List<Object> l = new ArrayList<>();
            ws();
            if (pos < s.length() && s.charAt(pos) == ']') {
                pos++;
                return l;
            }
            while (true) {
                l.add(value());
                ws();
                if (pos < s.length() && s.charAt(pos) == ',') {
                    pos++;
                    continue;
                }
                expect(']');
                return l;
            }
        }

        private Object scalar() {
            int start = pos;
            while (pos < s.length() && ",}]".indexOf(s.charAt(pos)) < 0) {
                pos++;
            }
            String word = s.substring(start, pos).strip();
            if (word.equals("None")) {
                return PythonJson.NULL;
            }
            Object v;
            try {
                v = PythonJson.parse(word);
            } catch (IllegalArgumentException e) {
                throw error("not a value: '" + word + "'");
            }
            if (v instanceof Map<?, ?> || v instanceof List<?> || v instanceof String) {
                throw error("not a scalar: '" + word + "'");
            }
            return v;
        }
    }
}
