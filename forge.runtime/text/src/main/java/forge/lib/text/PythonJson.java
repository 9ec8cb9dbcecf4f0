package forge.lib.text;

import forge.api.TemplateException;
import forge.api.template.ToolCall;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * JSON as Python writes it: the {@code tojson} filter of Hugging Face chat templates
 * ({@code json.dumps(x, ensure_ascii=False, indent=indent)}) with every option it passes on, and
 * a small reader that builds the trees it writes. Official templates print tool definitions and
 * tool-call arguments with {@code tojson}, so a byte-identical prompt needs Python's spacing
 * ({@code ", "} and {@code ": "}), its float spelling ({@code 1.0}, {@code 1e-05}) and its
 * escapes; OpenAI clients receive arguments {@link #compact compact}; grammars quote JSON
 * literals with the same escapes.
 *
 * <p>Trees are {@code Map<?, ?>} (key order kept), {@code List<?>} (any collection, an array or a
 * {@link PythonValues.Tuple} is written as a list), {@code String},
 * {@code Boolean}, integers ({@code Long}, {@code Integer}, {@code BigInteger}, ...), floats
 * ({@code Double}, {@code Float}, {@code BigDecimal}) and {@link #NULL} (Java {@code null} is
 * written as {@code null} too). A template engine with values of its own (a safe string, its
 * own None) gives the writer a {@link Writer#view view} that turns them into these.
 *
 * {@snippet :
 * Object args = PythonJson.parse("{\"city\":\"Paris\",\"days\":2.0}");
 * PythonJson.dumps(args);                        // {"city": "Paris", "days": 2.0}
 * PythonJson.dumps(args, 4);                     // indented by four spaces, items separated by ","
 * PythonJson.compact(args);                      // {"city":"Paris","days":2.0}
 * PythonJson.writer().ensureAscii(true).sortKeys(true).dumps(Map.of("b", "é", "a", 1));  // {"a": 1, "b": "\\u00e9"}
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

    private static final Writer PYTHON = new Writer(false, null, null, ": ", false, UnaryOperator.identity());
    private static final Writer COMPACT = PYTHON.separators(",", ":");

    private PythonJson() {}

    /** {@code json.dumps(value, ensure_ascii=False)}: one line, {@code ", "} and {@code ": "} separators. */
    public static String dumps(Object value) {
        return PYTHON.dumps(value);
    }

    /** {@code json.dumps(value, ensure_ascii=False, indent=indent)}: {@code ","} and {@code ": "} separators. */
    public static String dumps(Object value, int indent) {
        if (indent < 0) {
            throw new IllegalArgumentException("indent < 0");
        }
        return PYTHON.indent(indent).dumps(value);
    }

    /**
     * {@code json.dumps(value, ensure_ascii=False, separators=(",", ":"))}: JSON without Python's
     * spaces, as OpenAI clients receive tool-call arguments and grammars spell JSON literals.
     */
    public static String compact(Object value) {
        return COMPACT.dumps(value);
    }

    /** A JSON string literal as Python writes it with {@code ensure_ascii=False}. */
    public static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        quote(sb, s, false);
        return sb.toString();
    }

    /** {@code json.dumps} with tojson's defaults ({@code ensure_ascii=False}, no indent), to adjust. */
    public static Writer writer() {
        return PYTHON;
    }

    /**
     * The arguments of a call as a JSON tree, as templates print them with {@code tojson}; blank
     * arguments are an empty object.
     *
     * @throws TemplateException when the arguments are not JSON
     */
    public static Object arguments(ToolCall call) {
        try {
            return parse(call.arguments().isBlank() ? "{}" : call.arguments());
        } catch (IllegalArgumentException e) {
            throw new TemplateException(
                    "the arguments of tool call '" + call.name() + "' are not JSON: " + e.getMessage(), e);
        }
    }

    /**
     * {@code json.dumps} with its keyword arguments: immutable, each method returns a writer that
     * differs in one of them.
     *
     * <p>Values that are not JSON (after the {@link #view}) fail with an
     * {@link IllegalArgumentException} worded as Python's {@code TypeError}: {@code Object of type
     * X is not JSON serializable}, {@code keys must be str, int, float, bool or None, not X}.
     */
    public static final class Writer {
        private final boolean ensureAscii;
        /** null: indent=None, one line. */
        private final String indent;
        /** null: Python's default, {@code ", "} on one line and {@code ","} when indented. */
        private final String itemSeparator;

        private final String keySeparator;
        private final boolean sortKeys;
        private final UnaryOperator<Object> view;

        private Writer(
                boolean ensureAscii,
                String indent,
                String itemSeparator,
                String keySeparator,
                boolean sortKeys,
                UnaryOperator<Object> view) {
            this.ensureAscii = ensureAscii;
            this.indent = indent;
            this.itemSeparator = itemSeparator;
            this.keySeparator = keySeparator;
            this.sortKeys = sortKeys;
            this.view = view;
        }

        /** {@code ensure_ascii}: every character past {@code ~} as a <code>&#92;uXXXX</code> escape (UTF-16 units, as Python). */
        public Writer ensureAscii(boolean on) {
            return new Writer(on, indent, itemSeparator, keySeparator, sortKeys, view);
        }

        /**
         * {@code indent=n}: each item on its own line, {@code n} spaces a level (none for 0 or
         * less); items are then separated by {@code ","} unless {@link #separators} say otherwise.
         */
        public Writer indent(int spaces) {
            return indent(" ".repeat(Math.max(0, spaces)));
        }

        /** {@code indent="..."}: each item on its own line, this text a level. */
        public Writer indent(String pad) {
            Objects.requireNonNull(pad);
            return new Writer(ensureAscii, pad, itemSeparator, keySeparator, sortKeys, view);
        }

        /** {@code separators=(item, key)}. */
        public Writer separators(String item, String key) {
            return new Writer(
                    ensureAscii, indent, Objects.requireNonNull(item), Objects.requireNonNull(key), sortKeys, view);
        }

        /** {@code sort_keys}: a dict's items by key. */
        public Writer sortKeys(boolean on) {
            return new Writer(ensureAscii, indent, itemSeparator, keySeparator, on, view);
        }

        /**
         * How an engine's own values are written: {@code view} is applied to every value and key
         * before it is written and returns a JSON value (or the value itself); it may throw to
         * refuse one. A {@link PythonValues.Opaque} is refused with its type name.
         */
        public Writer view(UnaryOperator<Object> view) {
            return new Writer(ensureAscii, indent, itemSeparator, keySeparator, sortKeys, Objects.requireNonNull(view));
        }

        /** {@code json.dumps(value, ...)}. */
        public String dumps(Object value) {
            if (itemSeparator == null) {
                return separators(indent == null ? ", " : ",", keySeparator).dumps(value);
            }
            StringBuilder sb = new StringBuilder();
            write(sb, value, 0);
            return sb.toString();
        }

        private void write(StringBuilder sb, Object value, int depth) {
            Object v = view.apply(value);
            switch (v) {
                case null -> sb.append("null");
                case String s -> quote(sb, s, ensureAscii);
                case Boolean b -> sb.append(b ? "true" : "false");
                case Double d -> sb.append(PythonValues.floatJson(d));
                case Float f -> sb.append(PythonValues.floatJson(f.doubleValue()));
                case BigDecimal d -> sb.append(PythonValues.floatJson(d.doubleValue()));
                case Number n -> sb.append(n);
                case Character c -> quote(sb, c.toString(), ensureAscii);
                case Map<?, ?> m -> writeMap(sb, m, depth);
                case Collection<?> c -> writeList(sb, c, depth);
                case Object[] a -> writeList(sb, Arrays.asList(a), depth);
                case PythonValues.Tuple t -> writeList(sb, t.items(), depth);
                default -> {
                    if (v != NULL) {
                        throw new IllegalArgumentException(
                                "Object of type " + PythonValues.typeName(v) + " is not JSON serializable");
                    }
                    sb.append("null");
                }
            }
        }

        private void writeList(StringBuilder sb, Collection<?> items, int depth) {
            if (items.isEmpty()) {
                sb.append("[]");
                return;
            }
            sb.append('[');
            boolean first = true;
            for (Object item : items) {
                if (!first) {
                    sb.append(itemSeparator);
                }
                first = false;
                newline(sb, depth + 1);
                write(sb, item, depth + 1);
            }
            newline(sb, depth);
            sb.append(']');
        }

        private void writeMap(StringBuilder sb, Map<?, ?> m, int depth) {
            if (m.isEmpty()) {
                sb.append("{}");
                return;
            }
            List<Map.Entry<String, Object>> entries = new ArrayList<>(m.size());
            for (Map.Entry<?, ?> e : m.entrySet()) {
                entries.add(new AbstractMap.SimpleImmutableEntry<>(key(e.getKey()), e.getValue()));
            }
            if (sortKeys) {
                entries.sort(Map.Entry.comparingByKey(Comparator.naturalOrder()));
            }
            sb.append('{');
            for (int i = 0; i < entries.size(); i++) {
                if (i > 0) {
                    sb.append(itemSeparator);
                }
                newline(sb, depth + 1);
                quote(sb, entries.get(i).getKey(), ensureAscii);
                sb.append(keySeparator);
                write(sb, entries.get(i).getValue(), depth + 1);
            }
            newline(sb, depth);
            sb.append('}');
        }

        /** A key as {@code json.dumps} writes it: strings as they are, numbers and constants by their JSON spelling. */
        private String key(Object key) {
            Object k = view.apply(key);
            return switch (k) {
                case String s -> s;
                case Character c -> c.toString();
                case null -> "null";
                case Boolean b -> b ? "true" : "false";
                case Double d -> PythonValues.floatJson(d);
                case Float f -> PythonValues.floatJson(f.doubleValue());
                case BigDecimal d -> PythonValues.floatJson(d.doubleValue());
                case Number n -> n.toString();
                default -> {
                    if (k != NULL) {
                        throw new IllegalArgumentException(
                                "keys must be str, int, float, bool or None, not " + PythonValues.typeName(k));
                    }
                    yield "null";
                }
            };
        }

        private void newline(StringBuilder sb, int depth) {
            if (indent != null) {
                sb.append('\n').repeat(indent, depth);
            }
        }
    }

    private static void quote(StringBuilder sb, String s, boolean ensureAscii) {
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
                    if (c < 0x20 || ensureAscii && c > '~') {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
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
            if (!opensEmpty('}')) {
                do {
                    ws();
                    if (peek() != '"') {
                        throw error("expected a key");
                    }
                    String k = string();
                    ws();
                    expect(':');
                    ws();
                    m.put(k, value());
                } while (!endOfItems('}'));
            }
            return Collections.unmodifiableMap(m);
        }

        List<Object> array() {
            List<Object> l = new ArrayList<>();
            if (!opensEmpty(']')) {
                do {
                    ws();
                    l.add(value());
                } while (!endOfItems(']'));
            }
            return Collections.unmodifiableList(l);
        }

        /** Steps over an object's or array's opening bracket: whether {@code close} follows at once (it is empty). */
        private boolean opensEmpty(char close) {
            pos++;
            ws();
            if (peek() == close) {
                pos++;
                return true;
            }
            return false;
        }

        /** After an item of an object or array: true at its {@code close}, false at the comma before the next item. */
        private boolean endOfItems(char close) {
            ws();
            char c = next();
            if (c == close) {
                return true;
            }
            if (c != ',') {
                pos--;
                throw error("expected , or " + close);
            }
            return false;
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
