package forge.lib.text;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Python's view of template values: {@code str()}, {@code repr()}, truth and type names, the
 * operations whose Java defaults print or decide otherwise ({@code {a=1}} for {@code {'a': 1}},
 * {@code 1.0E-5} for {@code 1e-05}, {@code true} for {@code True}, {@code "false"} true).
 * Official templates print values with {@code |string} or {@code ~} and test them with
 * {@code {% if %}}, so a byte-identical prompt needs Python's answers.
 *
 * <p>The values are JSON trees as {@link PythonJson} reads them, with Java {@code null} and
 * {@link PythonJson#NULL} both {@code None}, plus Python's other types as Java has them: any
 * {@link Collection} or array is a list, a {@link Tuple} a tuple, a {@link Character} a
 * one-character string. A template engine with values of its own (a safe string, Jinja's
 * Undefined, a namespace) makes a {@link View} that turns them into these first, or into an
 * {@link Opaque} that says how they print.
 *
 * {@snippet :
 * PythonValues.str(Map.of("a", List.of(true, PythonJson.NULL, 1e-5)));  // {'a': [True, None, 1e-05]}
 * PythonValues.repr("it's");                                             // "it's"
 * PythonValues.truthy("");                                               // false
 * PythonValues.typeName(2.0);                                            // float
 * }
 */
public final class PythonValues {

    /** A Python tuple: prints as {@code ('a', 1)} or {@code ('a',)}. */
    public record Tuple(List<?> items) {
        public Tuple {
            items = Collections.unmodifiableList(new ArrayList<>(items));
        }
    }

    /**
     * A value a template engine has of its own, as Python sees it: its type's name, what
     * {@code str()} and {@code repr()} print, and its truth. {@link PythonJson} refuses it with
     * its type name.
     */
    public record Opaque(String typeName, String str, String repr, boolean truthy) {
        public Opaque {
            Objects.requireNonNull(typeName);
            Objects.requireNonNull(str);
            Objects.requireNonNull(repr);
        }
    }

    private static final View PLAIN = new View(UnaryOperator.identity());

    private PythonValues() {}

    /** {@code str(v)}. */
    public static String str(Object v) {
        return PLAIN.str(v);
    }

    /** {@code repr(v)}. */
    public static String repr(Object v) {
        return PLAIN.repr(v);
    }

    /** Python's truth: empty strings and containers, zero and None are false. */
    public static boolean truthy(Object v) {
        return PLAIN.truthy(v);
    }

    /** Python's type name ({@code NoneType}, {@code bool}, {@code int}, {@code str}, {@code dict}, ...), for errors as Python words them. */
    public static String typeName(Object v) {
        return PLAIN.typeName(v);
    }

    /** Python's {@code repr(float)}: shortest digits, exponent below 1e-4 and from 1e16, {@code nan}, {@code inf}. */
    public static String floatRepr(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        return floatJson(d);
    }

    /**
     * Python's view of an engine's values: {@code view} is applied to every value, at every depth,
     * before it is printed or tested, and returns a value of those this class knows (or the value
     * itself).
     */
    public static View view(UnaryOperator<Object> view) {
        return new View(Objects.requireNonNull(view));
    }

    /** {@code str}, {@code repr}, truth and type names through an engine's view of its values. */
    public static final class View {
        private final UnaryOperator<Object> view;

        private View(UnaryOperator<Object> view) {
            this.view = view;
        }

        /** {@code str(v)}. */
        public String str(Object v) {
            Object x = view.apply(v);
            return switch (x) {
                case String s -> s;
                case Character c -> c.toString();
                case Opaque o -> o.str();
                case null, default -> {
                    StringBuilder sb = new StringBuilder();
                    append(sb, x);
                    yield sb.toString();
                }
            };
        }

        /** {@code repr(v)}. */
        public String repr(Object v) {
            StringBuilder sb = new StringBuilder();
            append(sb, view.apply(v));
            return sb.toString();
        }

        /** Python's truth: empty strings and containers, zero and None are false. */
        public boolean truthy(Object v) {
            Object x = view.apply(v);
            return switch (x) {
                case null -> false;
                case Boolean b -> b;
                case String s -> !s.isEmpty();
                case Character c -> true;
                case BigDecimal d -> d.signum() != 0;
                case BigInteger i -> i.signum() != 0;
                case Number n -> n.doubleValue() != 0;
                case Collection<?> c -> !c.isEmpty();
                case Map<?, ?> m -> !m.isEmpty();
                case Object[] a -> a.length != 0;
                case Tuple t -> !t.items().isEmpty();
                case Opaque o -> o.truthy();
                default -> x != PythonJson.NULL;
            };
        }

        /** Python's type name, for errors as Python words them. */
        public String typeName(Object v) {
            Object x = view.apply(v);
            return switch (x) {
                case null -> "NoneType";
                case Boolean b -> "bool";
                case String s -> "str";
                case Character c -> "str";
                case Double d -> "float";
                case Float f -> "float";
                case BigDecimal d -> "float";
                case Number n -> "int";
                case Tuple t -> "tuple";
                case Map<?, ?> m -> "dict";
                case Collection<?> c -> "list";
                case Object[] a -> "list";
                case Opaque o -> o.typeName();
                default -> x == PythonJson.NULL ? "NoneType" : x.getClass().getSimpleName();
            };
        }

        /** Appends {@code repr(x)}, {@code x} already through the view. */
        private void append(StringBuilder sb, Object x) {
            switch (x) {
                case null -> sb.append("None");
                case Boolean b -> sb.append(b ? "True" : "False");
                case String s -> quote(sb, s);
                case Character c -> quote(sb, c.toString());
                case Double d -> sb.append(floatRepr(d));
                case Float f -> sb.append(floatRepr(f.doubleValue()));
                case BigDecimal d -> sb.append(floatRepr(d.doubleValue()));
                case Number n -> sb.append(n);
                case Opaque o -> sb.append(o.repr());
                case Map<?, ?> m -> {
                    sb.append('{');
                    boolean first = true;
                    for (Map.Entry<?, ?> e : m.entrySet()) {
                        if (!first) {
                            sb.append(", ");
                        }
                        first = false;
                        append(sb, view.apply(e.getKey()));
                        sb.append(": ");
                        append(sb, view.apply(e.getValue()));
                    }
                    sb.append('}');
                }
                case Tuple t -> {
                    sb.append('(');
                    items(sb, t.items());
                    sb.append(t.items().size() == 1 ? ",)" : ")");
                }
                case Collection<?> c -> {
                    sb.append('[');
                    items(sb, c);
                    sb.append(']');
                }
                case Object[] a -> {
                    sb.append('[');
                    items(sb, List.of(a));
                    sb.append(']');
                }
                default -> sb.append(x == PythonJson.NULL ? "None" : x.toString());
            }
        }

        private void items(StringBuilder sb, Collection<?> items) {
            boolean first = true;
            for (Object o : items) {
                if (!first) {
                    sb.append(", ");
                }
                first = false;
                append(sb, view.apply(o));
            }
        }
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
            case Character.CONTROL,
                    Character.FORMAT,
                    Character.SURROGATE,
                    Character.PRIVATE_USE,
                    Character.UNASSIGNED,
                    Character.LINE_SEPARATOR,
                    Character.PARAGRAPH_SEPARATOR -> false;
            case Character.SPACE_SEPARATOR -> c == ' ';
            default -> true;
        };
    }

    /** A finite float as {@code repr} and {@code json.dumps} both write it; {@code NaN} and {@code Infinity} as {@code json.dumps} does. */
    static String floatJson(double d) {
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
}
