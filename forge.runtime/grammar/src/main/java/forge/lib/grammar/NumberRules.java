package forge.lib.grammar;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.Objects;

/**
 * The rules of {@code integer} and {@code number} schemas, for a {@link JsonSchemaGrammar}: their
 * bounds ({@code minimum}, {@code maximum} and the exclusive ones of every draft) as integer
 * ranges ({@link IntRange}). The builder's rules are added through it, as it adds them itself.
 */
final class NumberRules {

    private NumberRules() {}

    /** Integer bounds, with draft 4's boolean exclusive flags and later drafts' numeric ones. */
    private record Bounds(BigDecimal min, boolean minExclusive, BigDecimal max, boolean maxExclusive) {
        boolean none() {
            return min == null && max == null;
        }
    }

    private static Bounds bounds(Map<String, Object> schema, String at) {
        BigDecimal min = decimal(schema, "minimum", at);
        BigDecimal max = decimal(schema, "maximum", at);
        boolean minEx = false;
        boolean maxEx = false;
        Object exMin = schema.get("exclusiveMinimum");
        if (exMin instanceof Boolean b) {
            minEx = b && min != null;
        } else if (exMin != null) {
            BigDecimal v = decimal(schema, "exclusiveMinimum", at);
            if (min == null || v.compareTo(min) >= 0) {
                min = v;
                minEx = true;
            }
        }
        Object exMax = schema.get("exclusiveMaximum");
        if (exMax instanceof Boolean b) {
            maxEx = b && max != null;
        } else if (exMax != null) {
            BigDecimal v = decimal(schema, "exclusiveMaximum", at);
            if (max == null || v.compareTo(max) <= 0) {
                max = v;
                maxEx = true;
            }
        }
        return new Bounds(min, minEx, max, maxEx);
    }

    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE / 2);
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE / 2);

    static String integer(JsonSchemaGrammar g, Map<String, Object> schema, String ruleName, String at) {
        Bounds b = bounds(schema, at);
        if (b.none()) {
            return g.visitPrimitive(ruleName, "integer");
        }
        long min = Long.MIN_VALUE;
        long max = Long.MAX_VALUE;
        if (b.min() != null) {
            BigDecimal m = b.min().setScale(0, RoundingMode.CEILING);
            if (b.minExclusive() && m.compareTo(b.min()) == 0) {
                m = m.add(BigDecimal.ONE);
            }
            min = m.max(LONG_MIN).longValueExact();
        }
        if (b.max() != null) {
            BigDecimal m = b.max().setScale(0, RoundingMode.FLOOR);
            if (b.maxExclusive() && m.compareTo(b.max()) == 0) {
                m = m.subtract(BigDecimal.ONE);
            }
            max = m.min(LONG_MAX).longValueExact();
        }
        if (min > max) {
            throw new InvalidSchemaException(at, "no integer lies between the minimum and the maximum");
        }
        StringBuilder out = new StringBuilder("(");
        IntRange.build(min, max, out, 16, true);
        return g.addRule(ruleName, out.append(')').toString());
    }

    /**
     * Numbers with integral inclusive bounds: an integer range with an optional fraction below
     * the upper bound, the bound itself with only zeros after the point. llama.cpp ignores number
     * bounds; other bounds here are refused.
     */
    static String number(JsonSchemaGrammar g, Map<String, Object> schema, String ruleName, String at) {
        Bounds b = bounds(schema, at);
        if (b.none()) {
            return g.visitPrimitive(ruleName, "number");
        }
        if (b.minExclusive() || b.maxExclusive()) {
            throw new UnsupportedSchemaException(
                    at,
                    b.minExclusive() ? "exclusiveMinimum" : "exclusiveMaximum",
                    "exclusive bounds are enforced for integers only");
        }
        for (BigDecimal v : new BigDecimal[] {b.min(), b.max()}) {
            if (v != null
                    && (v.stripTrailingZeros().scale() > 0
                            || v.abs().compareTo(BigDecimal.valueOf(1_000_000_000_000L)) > 0)) {
                throw new UnsupportedSchemaException(
                        at,
                        v == b.min() ? "minimum" : "maximum",
                        "number bounds must be integers of at most 12 digits to be enforced");
            }
        }
        Long min = b.min() == null ? null : b.min().longValueExact();
        Long max = b.max() == null ? null : b.max().longValueExact();
        if (min != null && max != null && min > max) {
            throw new InvalidSchemaException(at, "the minimum is greater than the maximum");
        }
        String frac = g.addPrimitive("decimal-part", "decimal-part");
        String ip = g.addPrimitive("integral-part", "integral-part");
        String body;
        if (min != null && max != null) {
            if (min >= 0) {
                body = closedNonNegative(min, max, frac);
            } else if (max <= 0) {
                body = "\"-\" (" + closedNonNegative(-max, -min, frac) + ")";
            } else {
                body = "\"-\" (" + closedNonNegative(0, -min, frac) + ") | " + closedNonNegative(0, max, frac);
            }
        } else if (min != null) {
            // [min, inf): at or above min, any fraction; or below zero down to min.
            StringBuilder up = new StringBuilder("(");
            IntRange.build(Math.max(min, 0), Long.MAX_VALUE, up, 16, true);
            body = up.append(") (\".\" ").append(frac).append(")?").toString();
            if (min < 0) {
                body = "\"-\" (" + closedNonNegative(0, -min, frac) + ") | " + body;
            }
        } else {
            StringBuilder down = new StringBuilder("(");
            IntRange.build(Math.max(-max, 0), Long.MAX_VALUE, down, 16, true);
            body = "\"-\" " + down.append(") (\".\" ").append(frac).append(")?");
            if (max > 0) {
                body = body + " | " + closedNonNegative(0, max, frac);
            }
        }
        Objects.requireNonNull(ip);
        return g.addRule(ruleName, "(" + body + ")");
    }

    /** A non-negative number in [lo, hi], lo and hi integers. */
    private static String closedNonNegative(long lo, long hi, String frac) {
        String top = "\"" + hi + "\" (\".\" \"0\"{1,16})?";
        if (lo == hi) {
            return top;
        }
        StringBuilder ints = new StringBuilder("(");
        IntRange.build(lo, hi - 1, ints, 16, true);
        return ints.append(") (\".\" ").append(frac).append(")? | ").append(top).toString();
    }

    private static BigDecimal decimal(Map<String, Object> schema, String key, String at) {
        Object v = schema.get(key);
        if (v == null) {
            return null;
        }
        if (!(v instanceof Number n)) {
            throw new InvalidSchemaException(at + "/" + key, key + " must be a number");
        }
        return finite(n, at, key);
    }

    /** A number exactly as written; JSON has no infinities, but a literal past a double's range (1e400) reads as one. */
    static BigDecimal finite(Number n, String at, String key) {
        if ((n instanceof Double || n instanceof Float) && !Double.isFinite(n.doubleValue())) {
            throw new InvalidSchemaException(
                    at + "/" + key, key + " must be a finite number, not one beyond a double's range");
        }
        return new BigDecimal(n.toString());
    }
}
