package forge.api.template;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON as Python writes it: the {@code tojson} filter of Hugging Face chat templates
 * ({@code json.dumps(x, ensure_ascii=False, indent=indent)}), and a small reader that builds the
 * trees it writes. Official templates print tool definitions and tool-call arguments with
 * {@code tojson}, so a byte-identical prompt needs Python's spacing ({@code ", "} and
 * {@code ": "}), its float spelling ({@code 1.0}, {@code 1e-05}) and its escapes.
 *
 * <p>Trees are {@code Map<String, ?>} (key order kept), {@code List<?>}, {@code String},
 * {@code Boolean}, {@code Long}, {@code BigInteger}, {@code Double} and {@link #NULL}.
 *
 * {@snippet :
 * Object args = PythonJson.parse("{\"city\":\"Paris\",\"days\":2.0}");
 * PythonJson.dumps(args);     // {"city": "Paris", "days": 2.0}
 * PythonJson.dumps(args, 4);  // indented by four spaces, items separated by ","
 * }
 */
public final class PythonJson {

    /** JSON {@code null} (Python's {@code None}) inside a tree: maps and lists here hold no Java null. */
    public static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "None";
        }
    };

    private PythonJson() {
    }

    /** {@code json.dumps(value, ensure_ascii=False)}: one line, {@code ", "} and {@code ": "} separators. */
    public static String dumps(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, -1, 0);
        return sb.toString();
    }

    /** {@code json.dumps(value, ensure_ascii=False, indent=indent)}: {@code ","} and {@code ": "} separators. */
    public static String dumps(Object value, int indent) {
        if (indent < 0) {
            throw new IllegalArgumentException("indent < 0");
        }
        StringBuilder sb = new StringBuilder();
        write(sb, value, indent, 0);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object v, int indent, int depth) {
        switch (v) {
            case null -> sb.append("null");
            case String s -> quote(sb, s);
            case Boolean b -> sb.append(b ? "true" : "false");
            case Double d -> sb.append(pythonFloat(d));
            case Float f -> sb.append(pythonFloat(f.doubleValue()));
            case Number n -> sb.append(n);
            case Map<?, ?> m -> {
                if (m.isEmpty()) {
                    sb.append("{}");
                    return;
                }
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!first) {
                        sb.append(indent < 0 ? ", " : ",");
                    }
                    first = false;
                    newline(sb, indent, depth + 1);
                    quote(sb, String.valueOf(e.getKey()));
                    sb.append(": ");
                    write(sb, e.getValue(), indent, depth + 1);
                }
                newline(sb, indent, depth);
                sb.append('}');
            }
            case List<?> l -> {
                if (l.isEmpty()) {
                    sb.append("[]");
                    return;
                }
                sb.append('[');
                for (int i = 0; i < l.size(); i++) {
                    if (i > 0) {
                        sb.append(indent < 0 ? ", " : ",");
                    }
                    newline(sb, indent, depth + 1);
                    write(sb, l.get(i), indent, depth + 1);
                }
                newline(sb, indent, depth);
                sb.append(']');
            }
            default -> {
                if (v == NULL) {
                    sb.append("null");
                } else {
                    throw new IllegalArgumentException("not a JSON value: " + v.getClass().getName());
                }
            }
        }
    }

    private static void newline(StringBuilder sb, int indent, int depth) {
        if (indent >= 0) {
            sb.append('\n').repeat(' ', indent * depth);
        }
    }

    /** A JSON string literal as Python writes it with {@code ensure_ascii=False}. */
    public static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        quote(sb, s);
        return sb.toString();
    }

    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    /** Python's {@code repr(float)}: shortest digits, exponent below 1e-4 and from 1e16. */
    static String pythonFloat(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "Infinity" : "-Infinity";
        }
        if (d == 0) {
            return (1 / d < 0) ? "-0.0" : "0.0";
        }
        // Double.toString gives the shortest round-tripping digits since JDK 19, like Python's repr.
        BigDecimal bd = new BigDecimal(Double.toString(Math.abs(d))).stripTrailingZeros();
        String digits = bd.unscaledValue().toString();
        int exp = digits.length() - 1 - bd.scale(); // decimal exponent of the first digit
        StringBuilder sb = new StringBuilder(d < 0 ? "-" : "");
        if (exp < -4 || exp >= 16) {
            sb.append(digits.charAt(0));
            if (digits.length() > 1) {
                sb.append('.').append(digits, 1, digits.length());
            }
            sb.append('e').append(exp < 0 ? '-' : '+');
            int a = Math.abs(exp);
            sb.append(a < 10 ? "0" + a : Integer.toString(a));
        } else if (exp < 0) {
            sb.append("0.").repeat('0', -exp - 1).append(digits);
        } else if (digits.length() <= exp + 1) {
            sb.append(digits).repeat('0', exp + 1 - digits.length()).append(".0");
        } else {
            sb.append(digits, 0, exp + 1).append('.').append(digits, exp + 1, digits.length());
        }
        return sb.toString();
    }

    /**
     * Reads JSON text into a tree (see the class comment).
     *
     * @throws IllegalArgumentException with the offset when the text is not JSON
     */
    public static Object parse(String text) {
        Reader r = new Reader(text);
        r.ws();
        Object v = r.value();
        r.ws();
        if (r.pos != text.length()) {
            throw r.error("trailing characters");
        }
        return v;
    }

    private static final class Reader {
        private final String s;
        private int pos;

        Reader(String s) {
            this.s = s;
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException("invalid JSON at offset " + pos + ": " + what);
        }

        void ws() {
            while (pos < s.length() && " \t\r\n".indexOf(s.charAt(pos)) >= 0) {
                pos++;
            }
        }

        Object value() {
            if (pos >= s.length()) {
                throw error("unexpected end");
            }
            char c = s.charAt(pos);
            return switch (c) {
                case '{' -> object();
                case '[' -> array();
                case '"' -> string();
                case 't' -> literal("true", Boolean.TRUE);
                case 'f' -> literal("false", Boolean.FALSE);
                case 'n' -> literal("null", NULL);
                default -> number();
            };
        }

        Object literal(String word, Object v) {
            if (!s.startsWith(word, pos)) {
                throw error("expected " + word);
            }
            pos += word.length();
            return v;
        }

        Map<String, Object> object() {
            Map<String, Object> m = new LinkedHashMap<>();
            pos++;
            ws();
            if (peek() == '}') {
                pos++;
                return Collections.unmodifiableMap(m);
            }
            while (true) {
                ws();
                if (peek() != '"') {
                    throw error("expected a key");
                }
                String k = string();
                ws();
                expect(':');
                ws();
                m.put(k, value());
                ws();
                char c = next();
                if (c == '}') {
                    return Collections.unmodifiableMap(m);
                }
                if (c != ',') {
                    pos--;
                    throw error("expected , or }");
                }
            }
        }

        List<Object> array() {
            List<Object> l = new ArrayList<>();
            pos++;
            ws();
            if (peek() == ']') {
                pos++;
                return Collections.unmodifiableList(l);
            }
            while (true) {
                ws();
                l.add(value());
                ws();
                char c = next();
                if (c == ']') {
                    return Collections.unmodifiableList(l);
                }
                if (c != ',') {
                    pos--;
                    throw error("expected , or ]");
                }
            }
        }

        String string() {
            pos++;
            StringBuilder sb = new StringBuilder();
            while (true) {
                char c = next();
                if (c == '"') {
                    return sb.toString();
                }
                if (c < 0x20) {
                    pos--;
                    throw error("control character in string");
                }
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                char e = next();
                switch (e) {
                    case '"', '\\', '/' -> sb.append(e);
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'u' -> {
                        if (pos + 4 > s.length()) {
                            throw error("short \\u escape");
                        }
                        try {
                            sb.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
                        } catch (NumberFormatException x) {
                            throw error("bad \\u escape");
                        }
                        pos += 4;
                    }
                    default -> throw error("bad escape");
                }
            }
        }

        Object number() {
            int start = pos;
            if (peek() == '-') {
                pos++;
            }
            boolean fraction = false;
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c >= '0' && c <= '9') {
                    pos++;
                } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                    fraction = true;
                    pos++;
                } else {
                    break;
                }
            }
            String t = s.substring(start, pos);
            if (t.isEmpty() || t.equals("-")) {
                throw error("unexpected character");
            }
            try {
                if (fraction) {
                    return Double.parseDouble(t);
                }
                BigInteger b = new BigInteger(t);
                return b.bitLength() < 64 ? (Object) b.longValue() : b;
            } catch (NumberFormatException x) {
                pos = start;
                throw error("bad number");
            }
        }

        char peek() {
            if (pos >= s.length()) {
                throw error("unexpected end");
            }
            return s.charAt(pos);
        }

        char next() {
            char c = peek();
            pos++;
            return c;
        }

        void expect(char c) {
            if (next() != c) {
                pos--;
                throw error("expected " + c);
            }
        }
    }
}
