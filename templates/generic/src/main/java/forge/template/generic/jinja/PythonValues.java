package forge.template.generic.jinja;

import com.hubspot.jinjava.objects.Namespace;
import com.hubspot.jinjava.objects.SafeString;
import forge.template.toolkit.PythonJson;
import forge.template.toolkit.PythonValues.Opaque;
import forge.template.toolkit.PythonValues.Tuple;
import forge.template.toolkit.PythonValues.View;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Python's view of Jinjava's values: {@code str()} and {@code repr()}, truth, {@code ==},
 * iteration and type names, the operations whose Java defaults print or decide otherwise
 * ({@code {a=1}} for {@code {'a': 1}}, {@code 1.0E-5} for {@code 1e-05}, {@code "false"} falsy,
 * {@code 1 == "1"} true). Java {@code null} is Jinja2's Undefined, {@link PyNone#NONE} is
 * {@code None}. Printing and truth are the template toolkit's ({@link forge.template.toolkit.PythonValues}),
 * seen through {@link #VIEW}.
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

    /** Jinja2's Undefined as Python code sees it: prints nothing, reprs as {@code Undefined}, is false. */
    private static final Opaque UNDEFINED = new Opaque("Undefined", "", "Undefined", false);

    /**
     * Jinjava's values as the toolkit's: Undefined and a namespace (an object, not a dict, in
     * Jinja2) are opaque, a safe string is a string, {@link PyNone} is None, {@link PyTuple} a tuple.
     */
    static final UnaryOperator<Object> JINJAVA = PythonValues::python;

    private static final View VIEW = forge.template.toolkit.PythonValues.view(JINJAVA);

    private static Object python(Object v) {
        return switch (v) {
            case null -> UNDEFINED;
            case PyNone n -> PythonJson.NULL;
            case SafeString s -> s.toString();
            case PyTuple t -> new Tuple(t);
            case Namespace ns -> {
                String repr = "<Namespace " + VIEW.repr(new LinkedHashMap<>(ns)) + ">";
                yield new Opaque("Namespace", repr, repr, true);
            }
            default -> v;
        };
    }

    /** {@code str(v)}, with Undefined as the empty string (how Jinja2 prints it). */
    static String str(Object v) {
        return VIEW.str(v);
    }

    /** {@code repr(v)}. */
    static String repr(Object v) {
        return VIEW.repr(v);
    }

    /** Python's truth: empty strings and containers, zero, None and Undefined are false. */
    static boolean truthy(Object v) {
        return VIEW.truthy(v);
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
        return VIEW.typeName(v);
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
