package forge.template.generic.jinja;

import com.hubspot.jinjava.objects.Namespace;
import com.hubspot.jinjava.objects.SafeString;
import forge.api.template.PythonJson;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Python's view of Jinjava's values: {@code str()} and {@code repr()}, truth, {@code ==},
 * iteration and type names, the operations whose Java defaults print or decide otherwise
 * ({@code {a=1}} for {@code {'a': 1}}, {@code 1.0E-5} for {@code 1e-05}, {@code "false"} falsy,
 * {@code 1 == "1"} true). Java {@code null} is Jinja2's Undefined, {@link PyNone#NONE} is
 * {@code None}.
 */
final class PythonValues {

    private PythonValues() {
    }

    /** Python's {@code TypeError} (and its kin) raised by a template: the render fails with this message. */
    static final class PythonError extends RuntimeException {
        PythonError(String message) {
            super(message, null, false, false);
        }
    }

    /** {@code str(v)}, with Undefined as the empty string (how Jinja2 prints it). */
    static String str(Object v) {
        return switch (v) {
            case null -> "";
            case String s -> s;
            case SafeString s -> s.toString();
            default -> {
                StringBuilder sb = new StringBuilder();
                append(sb, v, false);
                yield sb.toString();
            }
        };
    }

    /** {@code repr(v)}. */
    static String repr(Object v) {
        StringBuilder sb = new StringBuilder();
        append(sb, v, true);
        return sb.toString();
    }

    private static void append(StringBuilder sb, Object v, boolean repr) {
        switch (v) {
            case null -> sb.append(repr ? "Undefined" : "");
            case PyNone n -> sb.append("None");
            case Boolean b -> sb.append(b ? "True" : "False");
            case String s -> {
                if (repr) {
                    quote(sb, s);
                } else {
                    sb.append(s);
                }
            }
            case SafeString s -> {
                if (repr) {
                    quote(sb, s.toString());
                } else {
                    sb.append(s);
                }
            }
            case Double d -> sb.append(floatRepr(d));
            case Float f -> sb.append(floatRepr(f.doubleValue()));
            case BigDecimal d -> sb.append(floatRepr(d.doubleValue()));
            case Number n -> sb.append(n);
            case Character c -> {
                if (repr) {
                    quote(sb, c.toString());
                } else {
                    sb.append(c);
                }
            }
            case Namespace ns -> {
                sb.append("<Namespace ");
                appendMap(sb, ns);
                sb.append('>');
            }
            case Map<?, ?> m -> appendMap(sb, m);
            case PyTuple t -> {
                sb.append('(');
                for (int i = 0; i < t.size(); i++) {
                    if (i > 0) {
                        sb.append(", ");
                    }
                    append(sb, t.get(i), true);
                }
                sb.append(t.size() == 1 ? ",)" : ")");
            }
            case Collection<?> c -> {
                sb.append('[');
                boolean first = true;
                for (Object o : c) {
                    if (!first) {
                        sb.append(", ");
                    }
                    first = false;
                    append(sb, o, true);
                }
                sb.append(']');
            }
            default -> sb.append(v);
        }
    }

    private static void appendMap(StringBuilder sb, Map<?, ?> m) {
        sb.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!first) {
                sb.append(", ");
            }
            first = false;
            append(sb, e.getKey(), true);
            sb.append(": ");
            append(sb, e.getValue(), true);
        }
        sb.append('}');
    }

    /** Python's {@code repr(float)}: {@code 2.0}, {@code 1e-05}, {@code inf}, {@code nan}. */
    static String floatRepr(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        return PythonJson.dumps(d); // json.dumps spells finite floats as repr does
    }

    /** A string literal as {@code repr(str)} writes it: single quotes unless only double quotes avoid escapes. */
    private static void quote(StringBuilder sb, String s) {
        char q = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
        sb.append(q);
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            i += Character.charCount(c);
            if (c == q || c == '\\') {
                sb.append('\\').appendCodePoint(c);
            } else if (c == '\n') {
                sb.append("\\n");
            } else if (c == '\r') {
                sb.append("\\r");
            } else if (c == '\t') {
                sb.append("\\t");
            } else if (c < 0x20 || c == 0x7f) {
                sb.append(String.format("\\x%02x", c));
            } else if (c < 0x7f || printable(c)) {
                sb.appendCodePoint(c);
            } else if (c <= 0xff) {
                sb.append(String.format("\\x%02x", c));
            } else if (c <= 0xffff) {
                sb.append(String.format("\\u%04x", c));
            } else {
                sb.append(String.format("\\U%08x", c));
            }
        }
        sb.append(q);
    }

    /** Python's {@code str.isprintable} for one code point: not a control, format, separator (but space), private or unassigned. */
    private static boolean printable(int c) {
        return switch (Character.getType(c)) {
            case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE, Character.UNASSIGNED,
                 Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR -> false;
            case Character.SPACE_SEPARATOR -> c == ' ';
            default -> true;
        };
    }

    /** Python's truth: empty strings and containers, zero, None and Undefined are false. */
    static boolean truthy(Object v) {
        return switch (v) {
            case null -> false;
            case PyNone n -> false;
            case Boolean b -> b;
            case String s -> !s.isEmpty();
            case SafeString s -> !s.toString().isEmpty();
            case BigDecimal d -> d.signum() != 0;
            case BigInteger i -> i.signum() != 0;
            case Number n -> n.doubleValue() != 0;
            case Namespace ns -> true; // an object, not a dict, in Jinja2
            case Collection<?> c -> !c.isEmpty();
            case Map<?, ?> m -> !m.isEmpty();
            case Object[] a -> a.length != 0;
            default -> true;
        };
    }

    /** Python's {@code ==}: numbers by value ({@code True == 1}, {@code 1 == 1.0}), strings by text, containers item by item. */
    static boolean eq(Object a, Object b) {
        if (a == b) {
            return true;
        }
        if (a == null || b == null) {
            return false;
        }
        if (a instanceof SafeString s) {
            a = s.toString();
        }
        if (b instanceof SafeString s) {
            b = s.toString();
        }
        if (isNumber(a) && isNumber(b)) {
            return compareNumbers(a, b) == 0;
        }
        if (a instanceof String x) {
            return x.equals(b);
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if ((a instanceof PyTuple) != (b instanceof PyTuple)) {
                return false; // (1, 2) != [1, 2]
            }
            if (x.size() != y.size()) {
                return false;
            }
            Iterator<?> i = x.iterator();
            Iterator<?> j = y.iterator();
            while (i.hasNext()) {
                if (!eq(i.next(), j.next())) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y && !(a instanceof Namespace) && !(b instanceof Namespace)) {
            if (x.size() != y.size()) {
                return false;
            }
            for (Map.Entry<?, ?> e : x.entrySet()) {
                if (!y.containsKey(e.getKey()) || !eq(e.getValue(), y.get(e.getKey()))) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(b);
    }

    /** Python's {@code item in container}: a substring, a list's item, a dict's key, all by {@code ==}. */
    static boolean contains(Object container, Object item) {
        return switch (container) {
            case null -> false; // Undefined iterates as empty
            case String s -> s.contains(substring(item));
            case SafeString s -> s.toString().contains(substring(item));
            case Map<?, ?> m -> item instanceof String k && m.containsKey(k) || m.keySet().stream().anyMatch(k -> eq(k, item));
            case Collection<?> c -> c.stream().anyMatch(x -> eq(x, item));
            case Object[] a -> java.util.Arrays.stream(a).anyMatch(x -> eq(x, item));
            default -> throw new PythonError("argument of type '" + typeName(container) + "' is not iterable");
        };
    }

    private static String substring(Object item) {
        if (item instanceof String || item instanceof SafeString) {
            return item.toString();
        }
        throw new PythonError("'in <string>' requires string as left operand, not " + typeName(item));
    }

    /** Python's numbers, {@code bool} included ({@code True + 1 == 2}). */
    static boolean isNumber(Object v) {
        return v instanceof Number || v instanceof Boolean;
    }

    private static int compareNumbers(Object a, Object b) {
        Number x = a instanceof Boolean t ? (t ? 1L : 0L) : (Number) a;
        Number y = b instanceof Boolean t ? (t ? 1L : 0L) : (Number) b;
        if (isIntegral(x) && isIntegral(y)) {
            return x instanceof BigInteger || y instanceof BigInteger
                    ? big(x).compareTo(big(y)) : Long.compare(x.longValue(), y.longValue());
        }
        return Double.compare(x.doubleValue(), y.doubleValue());
    }

    private static boolean isIntegral(Number n) {
        return n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte || n instanceof BigInteger;
    }

    private static BigInteger big(Number n) {
        return n instanceof BigInteger b ? b : BigInteger.valueOf(n.longValue());
    }

    /** Python's type name, for error messages as Python words them. */
    static String typeName(Object v) {
        return switch (v) {
            case null -> "Undefined";
            case PyNone n -> "NoneType";
            case Boolean b -> "bool";
            case String s -> "str";
            case SafeString s -> "str";
            case Double d -> "float";
            case Float f -> "float";
            case BigDecimal d -> "float";
            case Number n -> "int";
            case Namespace ns -> "Namespace";
            case PyTuple t -> "tuple";
            case Map<?, ?> m -> "dict";
            case Collection<?> c -> "list";
            default -> v.getClass().getSimpleName();
        };
    }

    /**
     * The items of {@code for x in v} as Python iterates them: a string's characters, a dict's
     * keys, nothing for Undefined; anything else that Python cannot iterate raises its
     * {@code TypeError}.
     */
    static List<?> iterate(Object v) {
        return switch (v) {
            case null -> List.of();
            case List<?> l -> l;
            case Map<?, ?> m -> new ArrayList<>(m.keySet());
            case Collection<?> c -> new ArrayList<>(c);
            case Object[] a -> List.of(a);
            case String s -> characters(s);
            case SafeString s -> characters(s.toString());
            case Iterable<?> it -> {
                List<Object> out = new ArrayList<>();
                it.forEach(out::add);
                yield out;
            }
            case Iterator<?> it -> {
                List<Object> out = new ArrayList<>();
                it.forEachRemaining(out::add);
                yield out;
            }
            default -> throw new PythonError("'" + typeName(v) + "' object is not iterable");
        };
    }

    private static List<String> characters(String s) {
        List<String> out = new ArrayList<>(s.length());
        s.codePoints().forEach(c -> out.add(Character.toString(c)));
        return out;
    }
}
