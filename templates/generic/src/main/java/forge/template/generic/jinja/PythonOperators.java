package forge.template.generic.jinja;

import com.hubspot.jinjava.objects.SafeString;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import jinjava.de.odysseus.el.misc.NumberOperations;
import jinjava.de.odysseus.el.misc.TypeConverter;
import jinjava.de.odysseus.el.tree.Bindings;
import jinjava.de.odysseus.el.tree.impl.ast.AstBinary;
import jinjava.de.odysseus.el.tree.impl.ast.AstNode;
import jinjava.javax.el.ELContext;

/**
 * Python's binary operators for {@link PythonParser}, where EL's coerce: {@code 1 == "1"} was
 * true, {@code "a" + {...}} concatenated Java's {@code toString()}, {@code "%s" % x} and
 * {@code "=" * 3} failed, {@code -7 % 3} was {@code -1}, {@code 1 / 0} was {@code inf},
 * {@code and} gave a boolean. What Python refuses raises its {@code TypeError} here too.
 */
final class PythonOperators {

    private PythonOperators() {
    }

    /** The converter the numeric operations coerce with: only numbers reach them here. */
    private static final TypeConverter TYPES = TypeConverter.DEFAULT;

    /** {@code and}: the first falsy operand, else the last, evaluated left to right. */
    static final AstBinary.Operator AND = new AstBinary.Operator() {
        @Override
        public Object eval(Bindings bindings, ELContext context, AstNode left, AstNode right) {
            Object l = left.eval(bindings, context);
            return PythonValues.truthy(l) ? right.eval(bindings, context) : l;
        }

        @Override
        public String toString() {
            return "and";
        }
    };

    static final AstBinary.Operator EQ = simple("==", (a, b) -> PythonValues.eq(a, b));
    static final AstBinary.Operator NE = simple("!=", (a, b) -> !PythonValues.eq(a, b));
    static final AstBinary.Operator IN = simple("in", (item, container) -> PythonValues.contains(container, item));
    static final AstBinary.Operator NOT_IN = simple("not in", (item, container) -> !PythonValues.contains(container, item));

    /** {@code +}: numbers add, strings and lists concatenate; a plain string added to Markup is HTML-escaped. */
    static final AstBinary.Operator ADD = new AstBinary.SimpleOperator() {
        @Override
        protected Object apply(TypeConverter converter, Object a, Object b) {
            if (PythonValues.isNumber(a) && PythonValues.isNumber(b)) {
                return NumberOperations.add(converter, number(a), number(b));
            }
            if (isText(a) && isText(b)) {
                if (a instanceof SafeString || b instanceof SafeString) {
                    return new SafeString(html(a) + html(b)); // markupsafe's Markup.__add__
                }
                return a.toString() + b;
            }
            if (a instanceof List<?> x && b instanceof List<?> y) {
                List<Object> out = new ArrayList<>(x.size() + y.size());
                out.addAll(x);
                out.addAll(y);
                return out;
            }
            throw unsupported("+", a, b);
        }

        @Override
        public String toString() {
            return "+";
        }
    };

    /** {@code *}: numbers multiply, a string or list times an integer repeats. */
    static final AstBinary.Operator MUL = simple("*", (a, b) -> {
        if (PythonValues.isNumber(a) && PythonValues.isNumber(b)) {
            return NumberOperations.mul(TYPES, number(a), number(b));
        }
        if (isInteger(b) && (isText(a) || a instanceof List<?>)) {
            return repeat(a, ((Number) number(b)).intValue());
        }
        if (isInteger(a) && (isText(b) || b instanceof List<?>)) {
            return repeat(b, ((Number) number(a)).intValue());
        }
        throw unsupported("*", a, b);
    });

    /** {@code /}: true division, a float; by zero a {@code ZeroDivisionError}. */
    static final AstBinary.Operator DIV = simple("/", (a, b) -> {
        if (!PythonValues.isNumber(a) || !PythonValues.isNumber(b)) {
            throw unsupported("/", a, b);
        }
        double d = ((Number) number(b)).doubleValue();
        if (d == 0) {
            throw new PythonValues.PythonError("division by zero");
        }
        return ((Number) number(a)).doubleValue() / d;
    });

    /** {@code %}: a string's printf-style formatting, else the modulo that takes the divisor's sign. */
    static final AstBinary.Operator MOD = simple("%", (a, b) -> {
        if (isText(a)) {
            return PythonFormat.printf(a.toString(), b);
        }
        if (!PythonValues.isNumber(a) || !PythonValues.isNumber(b)) {
            throw unsupported("%", a, b);
        }
        Number x = (Number) number(a);
        Number y = (Number) number(b);
        if (isInteger(x) && isInteger(y)) {
            if (y.longValue() == 0) {
                throw new PythonValues.PythonError("integer modulo by zero");
            }
            return Math.floorMod(x.longValue(), y.longValue());
        }
        double divisor = y.doubleValue();
        if (divisor == 0) {
            throw new PythonValues.PythonError("float modulo");
        }
        double r = x.doubleValue() % divisor;
        return r != 0 && (r < 0) != (divisor < 0) ? r + divisor : r;
    });

    /** {@code **}: an integer to a non-negative integer power stays exact, anything else is a float. */
    static final AstBinary.Operator POW = simple("**", (a, b) -> {
        if (!PythonValues.isNumber(a) || !PythonValues.isNumber(b)) {
            throw unsupported("**", a, b);
        }
        Number x = (Number) number(a);
        Number y = (Number) number(b);
        if (isInteger(x) && isInteger(y) && y.longValue() >= 0 && y.longValue() <= 10_000) {
            BigInteger p = BigInteger.valueOf(x.longValue()).pow(y.intValue());
            return p.bitLength() < 64 ? (Object) p.longValue() : p;
        }
        return Math.pow(x.doubleValue(), y.doubleValue());
    });

    private interface Binary {
        Object apply(Object a, Object b);
    }

    private static AstBinary.Operator simple(String symbol, Binary op) {
        return new AstBinary.SimpleOperator() {
            @Override
            protected Object apply(TypeConverter converter, Object a, Object b) {
                return op.apply(a, b);
            }

            @Override
            public String toString() {
                return symbol;
            }
        };
    }

    private static PythonValues.PythonError unsupported(String op, Object a, Object b) {
        if (a == null || b == null) {
            return new PythonValues.PythonError("an undefined value cannot be used with '" + op + "'");
        }
        String left = PythonValues.typeName(a);
        if (op.equals("+") && (left.equals("str") || left.equals("list"))) {
            return new PythonValues.PythonError("can only concatenate " + left + " (not \"" + PythonValues.typeName(b) + "\") to " + left);
        }
        return new PythonValues.PythonError("unsupported operand type(s) for " + op + ": '" + left + "' and '"
                + PythonValues.typeName(b) + "'");
    }

    private static Object repeat(Object sequence, int times) {
        if (isText(sequence)) {
            return sequence.toString().repeat(Math.max(0, times));
        }
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            out.addAll((List<?>) sequence);
        }
        return out;
    }

    /** markupsafe's {@code escape}: Markup as it is, any other string with {@code &<>"'} escaped. */
    private static String html(Object v) {
        String s = v.toString();
        if (v instanceof SafeString) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&#34;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    private static boolean isText(Object v) {
        return v instanceof String || v instanceof SafeString;
    }

    private static boolean isInteger(Object v) {
        return v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte || v instanceof BigInteger
                || v instanceof Boolean;
    }

    /** Python's bool is an int. */
    private static Object number(Object v) {
        return v instanceof Boolean b ? (b ? 1L : 0L) : v;
    }
}
