package forge.template.jinja;

import forge.lib.text.PythonJson;
import forge.lib.text.PythonValues;
import forge.template.jinja.Types.Callable;
import forge.template.jinja.Types.Generator;
import forge.template.jinja.Types.Markup;
import forge.template.jinja.Types.Named;
import forge.template.jinja.Types.Namespace;
import forge.template.jinja.Types.Tuple;
import forge.template.jinja.Types.Undefined;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * How Jinja2 treats values, in one place: Python's {@code str}, {@code repr}, truth and type
 * names come from {@link PythonValues} (shared with the family templates) through a view of this
 * engine's own types; equality, membership, iteration, attribute and item lookup, slicing are
 * Jinja2's ({@code environment.getattr} tries the attribute, then the item; a miss is Undefined).
 */
final class Values {

    private Values() {}

    private static final PythonValues.View PYTHON = PythonValues.view(Values::view);

    /** This engine's values as {@link PythonValues} knows them. */
    static Object view(Object v) {
        return switch (v) {
            case Undefined u -> new PythonValues.Opaque("Undefined", "", "Undefined", false);
            case Generator g -> new PythonValues.Opaque("generator", "<generator object>", "<generator object>", true);
            case Markup m ->
                new PythonValues.Opaque(
                        "Markup",
                        m.text(),
                        "Markup(" + PythonValues.repr(m.text()) + ")",
                        !m.text().isEmpty());
            case Tuple t -> new PythonValues.Tuple(t);
            case Namespace ns -> {
                String repr = "<Namespace " + PYTHON.repr(ns.attributes) + ">";
                yield new PythonValues.Opaque("Namespace", repr, repr, true);
            }
            case Interpreter.Loop l -> new PythonValues.Opaque("LoopContext", "<LoopContext>", "<LoopContext>", true);
            case Named n ->
                new PythonValues.Opaque("function", "<function " + n.name() + ">", "<function " + n.name() + ">", true);
            case Callable c -> new PythonValues.Opaque("function", "<function>", "<function>", true);
            case null -> null;
            default -> v == PythonJson.NULL ? null : v;
        };
    }

    static String str(Object v) {
        return switch (v) {
            case String s -> s;
            case Markup m -> m.text();
            case Undefined u -> "";
            case null -> "None";
            default -> PYTHON.str(v);
        };
    }

    static String repr(Object v) {
        return PYTHON.repr(v);
    }

    static boolean truthy(Object v) {
        return switch (v) {
            case Boolean b -> b;
            case String s -> !s.isEmpty();
            case null -> false;
            default -> PYTHON.truthy(v);
        };
    }

    static String typeName(Object v) {
        return PYTHON.typeName(v);
    }

    /** {@code json.dumps} through this engine's view: Undefined and the engine's objects are refused as Python refuses them. */
    static PythonJson.Writer json() {
        return PythonJson.writer().view(Values::jsonView);
    }

    private static Object jsonView(Object v) {
        return switch (v) {
            case Markup m -> m.text();
            case Tuple t -> new ArrayList<>(t);
            case Undefined u -> new PythonValues.Opaque("Undefined", "", "", false);
            case Generator g -> view(g);
            case null -> null;
            default -> view(v);
        };
    }

    // ---- numbers

    static boolean isNumber(Object v) {
        return v instanceof Number || v instanceof Boolean;
    }

    static boolean isInt(Object v) {
        return v instanceof Long
                || v instanceof Integer
                || v instanceof Short
                || v instanceof Byte
                || v instanceof BigInteger
                || v instanceof Boolean;
    }

    static boolean isFloat(Object v) {
        return v instanceof Double || v instanceof Float || v instanceof BigDecimal;
    }

    /** An int as a {@code long}, or null when it does not fit. */
    static Long asLong(Object v) {
        return switch (v) {
            case Long l -> l;
            case Boolean b -> b ? 1L : 0L;
            case BigInteger b -> b.bitLength() < 64 ? b.longValue() : null;
            case Number n -> n.longValue();
            default -> null;
        };
    }

    static BigInteger big(Object v) {
        return v instanceof BigInteger b ? b : BigInteger.valueOf(asLong(v));
    }

    static double asDouble(Object v) {
        return v instanceof Boolean b ? (b ? 1 : 0) : ((Number) v).doubleValue();
    }

    /** An int result: a {@code long} when it fits. */
    static Object normal(BigInteger b) {
        return b.bitLength() < 64 ? (Object) b.longValue() : b;
    }

    // ---- equality and membership

    /** Python's {@code ==}: numbers by value ({@code True == 1 == 1.0}), containers item by item, tuples never equal lists. */
    static boolean eq(Object a, Object b) {
        if (a == b) {
            return true;
        }
        if (a instanceof Markup m) {
            a = m.text();
        }
        if (b instanceof Markup m) {
            b = m.text();
        }
        if (a == null || b == null) {
            return a == b;
        }
        if (isNumber(a) && isNumber(b)) {
            return Operators.compareNumbers(a, b) == 0;
        }
        if (a instanceof String x) {
            return x.equals(b);
        }
        if (a instanceof Undefined || b instanceof Undefined) {
            return a instanceof Undefined && b instanceof Undefined;
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if ((a instanceof Tuple) != (b instanceof Tuple) || x.size() != y.size()) {
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
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
            if (x.size() != y.size()) {
                return false;
            }
            for (Map.Entry<?, ?> e : x.entrySet()) {
                Object k = e.getKey();
                if (!y.containsKey(k) || !eq(e.getValue(), y.get(k))) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(b);
    }

    /** A dict key as Python hashes it: {@code 1}, {@code 1.0} and {@code True} are one key. */
    static Object key(Object k) {
        return switch (k) {
            case Markup m -> m.text();
            case Integer i -> (long) i;
            case Boolean b -> b ? 1L : 0L;
            case Double d when d == Math.rint(d) && Math.abs(d) < 0x1p62 -> (long) (double) d;
            case List<?> l when !(l instanceof Tuple) -> throw JinjaException.python("unhashable type: 'list'");
            case Map<?, ?> m -> throw JinjaException.python("unhashable type: 'dict'");
            case null -> null;
            default -> k;
        };
    }

    /** {@code item in container}: a substring, a list's item, a dict's key, all by {@code ==}. */
    static boolean contains(Object container, Object item) {
        return switch (container) {
            case Undefined u -> false;
            case String s -> s.contains(substring(item));
            case Markup m -> m.text().contains(substring(item));
            case Map<?, ?> m -> m.containsKey(item) || m.keySet().stream().anyMatch(k -> eq(k, item));
            case Collection<?> c -> c.stream().anyMatch(x -> eq(x, item));
            case null -> throw JinjaException.python("argument of type 'NoneType' is not iterable");
            default -> throw JinjaException.python("argument of type '" + typeName(container) + "' is not iterable");
        };
    }

    private static String substring(Object item) {
        if (item instanceof String || item instanceof Markup) {
            return item.toString();
        }
        throw JinjaException.python("'in <string>' requires string as left operand, not " + typeName(item));
    }

    // ---- iteration

    /** What {@code for x in v} walks: a list's items, a dict's keys, a string's characters, nothing for Undefined. */
    static List<?> iterate(Object v) {
        return switch (v) {
            case List<?> l -> l;
            case Map<?, ?> m -> new ArrayList<>(m.keySet());
            case String s -> characters(s);
            case Markup m -> characters(m.text());
            case Undefined u -> List.of();
            case Collection<?> c -> new ArrayList<>(c);
            case Object[] a -> List.of(a);
            case null -> throw JinjaException.python("'NoneType' object is not iterable");
            default -> throw JinjaException.python("'" + typeName(v) + "' object is not iterable");
        };
    }

    static List<Object> characters(String s) {
        List<Object> out = new ArrayList<>(s.length());
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            int n = Character.charCount(c);
            out.add(s.substring(i, i + n));
            i += n;
        }
        return out;
    }

    /** Python's {@code len}: code points of a string, items of a container; 0 for Undefined. */
    static long length(Object v) {
        return switch (v) {
            case String s -> s.codePointCount(0, s.length());
            case Markup m -> m.text().codePointCount(0, m.text().length());
            case Generator g -> throw JinjaException.python("object of type 'generator' has no len()");
            case Collection<?> c -> c.size();
            case Map<?, ?> m -> m.size();
            case Undefined u -> 0;
            case null, default -> throw JinjaException.python("object of type '" + typeName(v) + "' has no len()");
        };
    }

    // ---- attributes and items

    /** {@code obj.attr}: Python's attribute (a method of a str, dict or list), else the item, else Undefined. */
    static Object getattr(Object obj, String attr) {
        if (obj instanceof Undefined u) {
            throw JinjaException.python(u.hint());
        }
        if (obj instanceof Namespace ns) {
            Object v = ns.attributes.get(attr);
            return v != null || ns.attributes.containsKey(attr) ? v : missing(obj, attr);
        }
        if (obj instanceof Interpreter.Loop loop) {
            return loop.attribute(attr);
        }
        Object method = Methods.bind(obj, attr);
        if (method != null) {
            return method;
        }
        if (obj instanceof Map<?, ?> m) {
            Object v = m.get(attr);
            return v != null || m.containsKey(attr) ? v : missing(obj, attr);
        }
        return missing(obj, attr);
    }

    private static Undefined missing(Object obj, Object attr) {
        return new Undefined("'" + typeName(obj) + " object' has no attribute " + PythonValues.repr(str(attr)));
    }

    /** {@code obj[key]}: the item, else the attribute of that name, else Undefined. */
    static Object getitem(Object obj, Object key) {
        switch (obj) {
            case Undefined u -> throw JinjaException.python(u.hint());
            case Map<?, ?> m -> {
                Object k = key(key);
                Object v = m.get(k);
                if (v != null || m.containsKey(k)) {
                    return v;
                }
                if (k instanceof Long l && m.containsKey(l.intValue())) {
                    return m.get(l.intValue());
                }
            }
            case List<?> l -> {
                Long i = isInt(key) ? asLong(key) : null;
                if (i != null) {
                    long k = i < 0 ? i + l.size() : i;
                    return k >= 0 && k < l.size() ? l.get((int) k) : new Undefined("list object has no element " + i);
                }
            }
            case String s -> {
                Long i = isInt(key) ? asLong(key) : null;
                if (i != null) {
                    List<Object> chars = s.length() == s.codePointCount(0, s.length()) ? null : characters(s);
                    int n = chars == null ? s.length() : chars.size();
                    long k = i < 0 ? i + n : i;
                    if (k < 0 || k >= n) {
                        return new Undefined("string index out of range");
                    }
                    return chars == null ? String.valueOf(s.charAt((int) k)) : chars.get((int) k);
                }
            }
            case Markup m -> {
                return getitem(m.text(), key);
            }
            case null, default -> {}
        }
        if (key instanceof String name) {
            return getattr(obj, name);
        }
        return new Undefined("'" + typeName(obj) + " object' has no item " + repr(key));
    }

    /** {@code obj[start:stop:step]} of a list, tuple or string. */
    static Object slice(Object obj, Object start, Object stop, Object step) {
        long st = step == null ? 1 : index(step);
        if (st == 0) {
            throw JinjaException.python("slice step cannot be zero");
        }
        switch (obj) {
            case String s -> {
                List<Object> chars = characters(s);
                StringBuilder sb = new StringBuilder();
                for (int i : indices(chars.size(), start, stop, st)) {
                    sb.append((String) chars.get(i));
                }
                return sb.toString();
            }
            case Markup m -> {
                return new Markup((String) slice(m.text(), start, stop, step));
            }
            case List<?> l -> {
                List<Object> out = new ArrayList<>();
                for (int i : indices(l.size(), start, stop, st)) {
                    out.add(l.get(i));
                }
                return l instanceof Tuple ? new Tuple(out) : out;
            }
            case Undefined u -> throw JinjaException.python(u.hint());
            case null, default -> {
                return new Undefined("'" + typeName(obj) + "' object is not subscriptable");
            }
        }
    }

    private static long index(Object v) {
        if (v == null) {
            return 0;
        }
        if (!isInt(v)) {
            throw JinjaException.python("slice indices must be integers or None or have an __index__ method");
        }
        Long l = asLong(v);
        return l == null ? (big(v).signum() < 0 ? Long.MIN_VALUE / 2 : Long.MAX_VALUE / 2) : l;
    }

    /** The indices {@code range(len)[start:stop:step]} walks, as Python's {@code slice.indices}. */
    private static int[] indices(int length, Object startV, Object stopV, long step) {
        long start;
        long stop;
        if (step > 0) {
            start = startV == null ? 0 : clamp(adjust(index(startV), length), 0, length);
            stop = stopV == null ? length : clamp(adjust(index(stopV), length), 0, length);
        } else {
            start = startV == null ? length - 1 : clamp(adjust(index(startV), length), -1, length - 1);
            stop = stopV == null ? -1 : clamp(adjust(index(stopV), length), -1, length - 1);
        }
        long count = step > 0
                ? (stop > start ? (stop - start + step - 1) / step : 0)
                : (start > stop ? (start - stop + (-step) - 1) / (-step) : 0);
        int[] out = new int[(int) count];
        for (int k = 0; k < count; k++) {
            out[k] = (int) (start + k * step);
        }
        return out;
    }

    private static long adjust(long i, int length) {
        return i < 0 ? i + length : i;
    }

    private static long clamp(long v, long min, long max) {
        return Math.max(min, Math.min(max, v));
    }
}
