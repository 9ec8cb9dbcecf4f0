package forge.template.gemma;

import forge.api.template.ToolCall;
import forge.template.toolkit.PythonJson;
import forge.template.toolkit.calls.MarkupParser;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one Gemma 4 call, the text between {@code <|tool_call>} and {@code <tool_call|>}:
 * {@code call:NAME{key:value,...}} where strings are quoted with {@code <|"|>}, keys are bare and
 * numbers, {@code true}, {@code false} and {@code null} are JSON's (llama.cpp's gemma4 rules;
 * {@code None}, as the template prints a Python null in history, is read as {@code null} too).
 */
final class Gemma4Calls {

    private static final String Q = Gemma4Notation.Q;

    private final String s;
    private int pos;

    private Gemma4Calls(String s, int pos) {
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
        Gemma4Calls r = new Gemma4Calls(t, brace);
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
