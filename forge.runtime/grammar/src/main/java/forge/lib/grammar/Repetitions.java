package forge.lib.grammar;

import java.math.BigDecimal;
import java.util.Map;

/**
 * A repeated item in GBNF ({@code x?}, {@code x*}, {@code x{m,n}}, separated lists) and the schema
 * bounds that ask for one ({@code minItems}/{@code maxItems}, {@code minLength}/{@code maxLength}, a
 * pattern's quantifiers), checked against what llama.cpp's grammar parser can enforce. Shared by
 * {@link JsonSchemaGrammar} and {@link RegexToGbnf}.
 */
final class Repetitions {

    private Repetitions() {}

    /** {@code item} repeated {@code min} to {@code max} times ({@link Integer#MAX_VALUE}: no bound), {@code separator} between. */
    static String of(String item, int min, int max, String separator) {
        boolean hasMax = max != Integer.MAX_VALUE;
        if (max == 0) {
            return "";
        }
        if (min == 0 && max == 1) {
            return item + "?";
        }
        if (separator.isEmpty()) {
            if (min == 1 && !hasMax) {
                return item + "+";
            }
            if (min == 0 && !hasMax) {
                return item + "*";
            }
            return item + "{" + min + "," + (hasMax ? Integer.toString(max) : "") + "}";
        }
        String result =
                item + " " + of("(" + separator + " " + item + ")", min == 0 ? 0 : min - 1, hasMax ? max - 1 : max, "");
        if (min != 0) {
            return result;
        }
        // llama.cpp multiplies the rules inside a group by the group's repetition, "?" too: the
        // {0,max-1} above makes max+1 rules, and one more where the item's rule is named here first
        // (a rule defined further down), so from max = MAX_REPETITIONS - 1 on "(...)?" may be refused.
        // An empty alternative says the same and repeats nothing.
        return hasMax && max >= GbnfGrammar.MAX_REPETITIONS - 1 ? "(" + result + " | )" : "(" + result + ")?";
    }

    /** A repetition's bounds, {@code minKey} and {@code maxKey} of a schema (0 and unbounded when absent). */
    record Bounds(int min, int max) {}

    /** Reads a {@link Bounds}, each checked by {@link #check}; a maximum below the minimum is refused. */
    static Bounds bounds(Map<String, Object> schema, String minKey, String maxKey, String at) {
        int min = intOr(schema, minKey, 0, at);
        int max = intOr(schema, maxKey, Integer.MAX_VALUE, at);
        if (min > max) {
            throw new InvalidSchemaException(at + "/" + maxKey, maxKey + " is less than " + minKey);
        }
        check(min, at + "/" + minKey, minKey);
        check(max, at + "/" + maxKey, maxKey);
        return new Bounds(min, max);
    }

    /**
     * A count a grammar repeats its item by: llama.cpp refuses a grammar past
     * {@link GbnfGrammar#MAX_REPETITIONS} (or drops the bound), so such a count cannot be enforced.
     * {@link Integer#MAX_VALUE} stands for no bound.
     */
    static void check(int count, String pointer, String keyword) {
        if (count != Integer.MAX_VALUE && count > GbnfGrammar.MAX_REPETITIONS) {
            throw new UnsupportedSchemaException(
                    pointer,
                    keyword,
                    keyword + " " + count + " is over the limit of " + GbnfGrammar.MAX_REPETITIONS
                            + " repetitions a grammar can enforce");
        }
    }

    static int intOr(Map<String, Object> schema, String key, int fallback, String at) {
        Object v = schema.get(key);
        if (v == null) {
            return fallback;
        }
        BigDecimal d = v instanceof Number n ? NumberRules.finite(n, at, key) : null;
        if (d == null || d.signum() < 0 || d.stripTrailingZeros().scale() > 0) {
            throw new InvalidSchemaException(at + "/" + key, key + " must be a non-negative integer");
        }
        // Integer.MAX_VALUE stands for no bound; a count beyond an int (even beyond a long) is just very large.
        return d.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE - 1L)) >= 0 ? Integer.MAX_VALUE - 1 : d.intValue();
    }
}
