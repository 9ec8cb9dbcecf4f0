package forge.runtime.grammar;

import java.util.List;
import java.util.Map;

/** Compact JSON text of a JSON tree, for {@code const} and {@code enum} literals (this module has no JSON library). */
final class JsonText {

    private JsonText() {
    }

    static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(value, sb);
        return sb.toString();
    }

    private static void write(Object value, StringBuilder sb) {
        switch (value) {
            case null -> sb.append("null");
            case String s -> string(s, sb);
            case Boolean b -> sb.append(b);
            case Double d when d == Math.rint(d) && !d.isInfinite() && Math.abs(d) < 1e15 -> sb.append(d.longValue());
            case Number n -> sb.append(n);
            case Map<?, ?> m -> {
                sb.append('{');
                boolean first = true;
                for (var e : m.entrySet()) {
                    if (!first) {
                        sb.append(',');
                    }
                    first = false;
                    string(String.valueOf(e.getKey()), sb);
                    sb.append(':');
                    write(e.getValue(), sb);
                }
                sb.append('}');
            }
            case List<?> l -> {
                sb.append('[');
                for (int i = 0; i < l.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    write(l.get(i), sb);
                }
                sb.append(']');
            }
            default -> throw new InvalidSchemaException("", "not a JSON value: " + value.getClass().getSimpleName());
        }
    }

    /** A JSON string literal: the same escaping as Python's json.dumps writes. */
    private static void string(String s, StringBuilder sb) {
        // Until this package moves into a module of its own that uses the template toolkit's json.dumps.
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
}
