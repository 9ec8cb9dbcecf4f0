package forge.template.jinja;

import forge.template.jinja.Types.Markup;
import forge.template.jinja.Types.Tuple;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;

/**
 * Python's arithmetic and comparisons on template values: ints that never overflow, {@code /}
 * always a float, {@code //} and {@code %} rounding toward negative infinity, {@code **} with a
 * negative exponent a float, {@code str * n}, {@code list + list}, {@code str % args}, and
 * Python's {@code TypeError} for the rest. Sizes are charged to the render's budget before a
 * string or list is built.
 */
final class Operators {

    private Operators() {}

    static Object unary(String op, Object v) {
        if (!Values.isNumber(v)) {
            throw JinjaException.python("bad operand type for unary " + op + ": '" + Values.typeName(v) + "'");
        }
        if (op.equals("+")) {
            return v instanceof Boolean ? Values.asLong(v) : v;
        }
        if (Values.isFloat(v)) {
            return -Values.asDouble(v);
        }
        Long l = Values.asLong(v);
        return l != null && l != Long.MIN_VALUE
                ? (Object) (-l)
                : Values.normal(Values.big(v).negate());
    }

    static Object binary(Interpreter in, String op, Object a, Object b, int line) {
        if (Values.isNumber(a) && Values.isNumber(b)) {
            return arithmetic(in, op, a, b, line);
        }
        return switch (op) {
            case "+" -> plus(in, a, b, line);
            case "*" -> {
                if (Values.isInt(b) && !(Values.isNumber(a))) {
                    yield repeat(in, a, b, line);
                }
                if (Values.isInt(a) && !(Values.isNumber(b))) {
                    yield repeat(in, b, a, line);
                }
                throw unsupported(op, a, b);
            }
            case "%" -> {
                if (a instanceof String s) {
                    yield Format.printf(s, b);
                }
                if (a instanceof Markup m) {
                    yield new Markup(Format.printf(m.text(), b));
                }
                throw unsupported(op, a, b);
            }
            default -> throw unsupported(op, a, b);
        };
    }

    private static JinjaException unsupported(String op, Object a, Object b) {
        return JinjaException.python("unsupported operand type(s) for " + op + ": '" + Values.typeName(a) + "' and '"
                + Values.typeName(b) + "'");
    }

    private static Object plus(Interpreter in, Object a, Object b, int line) {
        if (a instanceof Markup m) {
            if (b instanceof String || b instanceof Markup) {
                String right = b instanceof Markup n ? n.text() : Filters.escape(b.toString());
                in.charge(m.text().length() + (long) right.length(), line);
                return new Markup(m.text() + right);
            }
        } else if (b instanceof Markup m && a instanceof String s) {
            in.charge(s.length() + (long) m.text().length(), line);
            return new Markup(Filters.escape(s) + m.text());
        }
        if (a instanceof String x) {
            if (b instanceof String y) {
                in.charge(x.length() + (long) y.length(), line);
                return x + y;
            }
            throw JinjaException.python("can only concatenate str (not \"" + Values.typeName(b) + "\") to str");
        }
        if (a instanceof List<?> x && !(a instanceof Tuple)) {
            if (b instanceof List<?> y && !(b instanceof Tuple)) {
                in.charge(x.size() + (long) y.size(), line);
                List<Object> out = new ArrayList<>(x.size() + y.size());
                out.addAll(x);
                out.addAll(y);
                return out;
            }
            throw JinjaException.python("can only concatenate list (not \"" + Values.typeName(b) + "\") to list");
        }
        if (a instanceof Tuple x) {
            if (b instanceof Tuple y) {
                in.charge(x.size() + (long) y.size(), line);
                List<Object> out = new ArrayList<>(x);
                out.addAll(y);
                return new Tuple(out);
            }
            throw JinjaException.python("can only concatenate tuple (not \"" + Values.typeName(b) + "\") to tuple");
        }
        throw unsupported("+", a, b);
    }

    private static Object repeat(Interpreter in, Object seq, Object times, int line) {
        Long n = Values.asLong(times);
        long k = n == null ? (Values.big(times).signum() < 0 ? 0 : Long.MAX_VALUE) : Math.max(0, n);
        switch (seq) {
            case String s -> {
                in.charge(multiply(s.length(), k), line);
                return s.repeat((int) k);
            }
            case Markup m -> {
                in.charge(multiply(m.text().length(), k), line);
                return new Markup(m.text().repeat((int) k));
            }
            case List<?> l -> {
                in.charge(multiply(l.size(), k), line);
                List<Object> out = new ArrayList<>();
                for (long i = 0; i < k; i++) {
                    out.addAll(l);
                }
                return l instanceof Tuple ? new Tuple(out) : out;
            }
            case null, default -> throw unsupported("*", seq, times);
        }
    }

    private static long multiply(long size, long times) {
        try {
            return Math.multiplyExact(size, times);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static Object arithmetic(Interpreter in, String op, Object a, Object b, int line) {
        boolean floats = Values.isFloat(a) || Values.isFloat(b);
        if (op.equals("/")) {
            double y = Values.asDouble(b);
            if (y == 0) {
                throw JinjaException.python(floats ? "float division by zero" : "division by zero");
            }
            if (!floats && (a instanceof BigInteger || b instanceof BigInteger)) {
                return new BigDecimal(Values.big(a))
                        .divide(new BigDecimal(Values.big(b)), MathContext.DECIMAL64)
                        .doubleValue();
            }
            return Values.asDouble(a) / y;
        }
        if (floats) {
            double x = Values.asDouble(a);
            double y = Values.asDouble(b);
            return switch (op) {
                case "+" -> x + y;
                case "-" -> x - y;
                case "*" -> x * y;
                case "//" -> {
                    if (y == 0) {
                        throw JinjaException.python("float floor division by zero");
                    }
                    yield Math.floor(x / y);
                }
                case "%" -> {
                    if (y == 0) {
                        throw JinjaException.python("float modulo");
                    }
                    double r = x % y;
                    yield r != 0 && (r < 0) != (y < 0) ? r + y : r;
                }
                case "**" -> Math.pow(x, y);
                default -> throw unsupported(op, a, b);
            };
        }
        Long x = Values.asLong(a);
        Long y = Values.asLong(b);
        if (x != null && y != null) {
            try {
                switch (op) {
                    case "+" -> {
                        return Math.addExact(x, y);
                    }
                    case "-" -> {
                        return Math.subtractExact(x, y);
                    }
                    case "*" -> {
                        return Math.multiplyExact(x, y);
                    }
                    case "//" -> {
                        if (y == 0) {
                            throw JinjaException.python("integer division or modulo by zero");
                        }
                        if (x != Long.MIN_VALUE || y != -1) {
                            return Math.floorDiv(x, y);
                        }
                    }
                    case "%" -> {
                        if (y == 0) {
                            throw JinjaException.python("integer modulo by zero");
                        }
                        return Math.floorMod(x, y);
                    }
                    default -> {}
                }
            } catch (ArithmeticException overflow) {
                // on to BigInteger
            }
        }
        BigInteger p = Values.big(a);
        BigInteger q = Values.big(b);
        return switch (op) {
            case "+" -> Values.normal(p.add(q));
            case "-" -> Values.normal(p.subtract(q));
            case "*" -> {
                in.charge((p.bitLength() + q.bitLength()) / 8, line);
                yield Values.normal(p.multiply(q));
            }
            case "//" -> {
                if (q.signum() == 0) {
                    throw JinjaException.python("integer division or modulo by zero");
                }
                BigInteger[] qr = p.divideAndRemainder(q);
                yield Values.normal(
                        qr[1].signum() != 0 && qr[1].signum() != q.signum() ? qr[0].subtract(BigInteger.ONE) : qr[0]);
            }
            case "%" -> {
                if (q.signum() == 0) {
                    throw JinjaException.python("integer modulo by zero");
                }
                BigInteger r = p.mod(q.abs());
                yield Values.normal(q.signum() < 0 && r.signum() != 0 ? r.add(q) : r);
            }
            case "**" -> {
                if (q.signum() < 0) {
                    yield Math.pow(p.doubleValue(), q.doubleValue());
                }
                // the result's size, checked before it is computed: 2 ** 10 ** 9 would take minutes
                long bits = (long) Math.ceil(p.abs().bitLength() * q.doubleValue());
                if (q.bitLength() > 31 || bits > 8L * 1024 * 1024) {
                    if (p.abs().compareTo(BigInteger.ONE) <= 0) {
                        yield Values.normal(
                                p.signum() == 0
                                        ? BigInteger.ZERO
                                        : p.signum() > 0 || !q.testBit(0) ? BigInteger.ONE : p);
                    }
                    throw JinjaException.python(
                            "the template computed an integer over " + (8L * 1024 * 1024) + " bits");
                }
                in.charge(bits / 8, line);
                yield Values.normal(p.pow(q.intValue()));
            }
            default -> throw unsupported(op, a, b);
        };
    }

    static int compareNumbers(Object a, Object b) {
        if (Values.isFloat(a) || Values.isFloat(b)) {
            double x = Values.asDouble(a);
            double y = Values.asDouble(b);
            if (!Values.isFloat(a) && a instanceof BigInteger || !Values.isFloat(b) && b instanceof BigInteger) {
                return new BigDecimal(a instanceof BigInteger p ? p.toString() : Double.toString(x))
                        .compareTo(new BigDecimal(b instanceof BigInteger q ? q.toString() : Double.toString(y)));
            }
            return Double.compare(x, y);
        }
        Long x = Values.asLong(a);
        Long y = Values.asLong(b);
        return x != null && y != null ? Long.compare(x, y) : Values.big(a).compareTo(Values.big(b));
    }

    static boolean compare(String op, Object a, Object b) {
        return switch (op) {
            case "==" -> Values.eq(a, b);
            case "!=" -> !Values.eq(a, b);
            case "in" -> Values.contains(b, a);
            case "not in" -> !Values.contains(b, a);
            default -> {
                if (nan(a) || nan(b)) {
                    yield false; // every ordering with nan is false
                }
                int c = order(op, a, b);
                yield switch (op) {
                    case "<" -> c < 0;
                    case "<=" -> c <= 0;
                    case ">" -> c > 0;
                    default -> c >= 0;
                };
            }
        };
    }

    /** Python's ordering of two values, or its {@code TypeError}. */
    static int order(String op, Object a, Object b) {
        if (Values.isNumber(a) && Values.isNumber(b)) {
            return compareNumbers(a, b);
        }
        Object x = a instanceof Markup m ? m.text() : a;
        Object y = b instanceof Markup m ? m.text() : b;
        if (x instanceof String s && y instanceof String t) {
            return compareStrings(s, t);
        }
        if (x instanceof List<?> l && y instanceof List<?> r && (x instanceof Tuple) == (y instanceof Tuple)) {
            for (int i = 0; i < Math.min(l.size(), r.size()); i++) {
                if (!Values.eq(l.get(i), r.get(i))) {
                    return order(op, l.get(i), r.get(i));
                }
            }
            return Integer.compare(l.size(), r.size());
        }
        throw JinjaException.python("'" + op + "' not supported between instances of '" + Values.typeName(a) + "' and '"
                + Values.typeName(b) + "'");
    }

    private static boolean nan(Object v) {
        return v instanceof Double d && d.isNaN();
    }

    /** Python compares strings by code point, Java's {@code compareTo} by UTF-16 unit. */
    static int compareStrings(String s, String t) {
        int i = 0;
        int j = 0;
        while (i < s.length() && j < t.length()) {
            int a = s.codePointAt(i);
            int b = t.codePointAt(j);
            if (a != b) {
                return Integer.compare(a, b);
            }
            i += Character.charCount(a);
            j += Character.charCount(b);
        }
        return Integer.compare(s.length() - i, t.length() - j);
    }
}
