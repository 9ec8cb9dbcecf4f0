package forge.template.jinja;

import forge.template.jinja.Types.Callable;
import forge.template.jinja.Types.Markup;
import forge.template.jinja.Types.Undefined;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Jinja2's tests ({@code jinja2/tests.py}): {@code x is number} is true of a bool as Python's
 * {@code isinstance(x, Number)} is, {@code x is integer} is not; a string is iterable and a
 * sequence; Undefined is both too. {@code defined} and {@code undefined} are answered by the
 * interpreter, which must not fail on the value first.
 */
final class Tests {

    private Tests() {}

    static boolean has(String name) {
        return switch (name) {
            case "boolean",
                    "callable",
                    "defined",
                    "divisibleby",
                    "eq",
                    "equalto",
                    "==",
                    "escaped",
                    "even",
                    "false",
                    "filter",
                    "float",
                    "ge",
                    ">=",
                    "gt",
                    "greaterthan",
                    ">",
                    "in",
                    "integer",
                    "iterable",
                    "le",
                    "<=",
                    "lower",
                    "lt",
                    "lessthan",
                    "<",
                    "mapping",
                    "ne",
                    "!=",
                    "none",
                    "number",
                    "odd",
                    "sameas",
                    "sequence",
                    "string",
                    "test",
                    "true",
                    "undefined",
                    "upper" -> true;
            default -> false;
        };
    }

    static boolean apply(
            Interpreter in, String name, Object v, List<Object> args, Map<String, Object> kwargs, int line) {
        Object other = args.isEmpty() ? kwargs.values().stream().findFirst().orElse(null) : args.getFirst();
        return switch (name) {
            case "boolean" -> v instanceof Boolean;
            case "callable" -> v instanceof Callable || v instanceof Interpreter.Loop;
            case "defined" -> !(v instanceof Undefined);
            case "undefined" -> v instanceof Undefined;
            case "divisibleby" -> {
                Object r = Operators.binary(in, "%", v, other, line);
                yield Values.isNumber(r) && Values.asDouble(r) == 0;
            }
            case "eq", "equalto", "==" -> Values.eq(v, other);
            case "ne", "!=" -> !Values.eq(v, other);
            case "ge", ">=" -> Operators.compare(">=", v, other);
            case "gt", "greaterthan", ">" -> Operators.compare(">", v, other);
            case "le", "<=" -> Operators.compare("<=", v, other);
            case "lt", "lessthan", "<" -> Operators.compare("<", v, other);
            case "in" -> Values.contains(other, v);
            case "escaped" -> v instanceof Markup;
            case "even" -> integer(v) % 2 == 0;
            case "odd" -> integer(v) % 2 != 0;
            case "false" -> Boolean.FALSE.equals(v);
            case "true" -> Boolean.TRUE.equals(v);
            case "filter" -> other instanceof String f && Filters.has(f);
            case "test" -> other instanceof String t && has(t);
            case "float" -> Values.isFloat(v);
            case "integer" -> Values.isInt(v) && !(v instanceof Boolean);
            case "number" -> Values.isNumber(v);
            case "iterable" ->
                v instanceof List
                        || v instanceof Map
                        || v instanceof String
                        || v instanceof Markup
                        || v instanceof Undefined
                        || v instanceof Collection;
            case "sequence" ->
                v instanceof List
                        || v instanceof Map
                        || v instanceof String
                        || v instanceof Markup
                        || v instanceof Undefined;
            case "mapping" -> v instanceof Map;
            case "string" -> v instanceof String || v instanceof Markup;
            case "none" -> v == null;
            case "sameas" -> v == other || v instanceof Boolean && v.equals(other);
            case "lower" -> {
                String s = Values.str(v);
                yield s.equals(s.toLowerCase(Locale.ROOT)) && !s.equals(s.toUpperCase(Locale.ROOT));
            }
            case "upper" -> {
                String s = Values.str(v);
                yield s.equals(s.toUpperCase(Locale.ROOT)) && !s.equals(s.toLowerCase(Locale.ROOT));
            }
            default -> throw new JinjaException("No test named '" + name + "'.", line);
        };
    }

    private static long integer(Object v) {
        if (!Values.isInt(v)) {
            throw JinjaException.python("not all arguments converted during string formatting");
        }
        return Values.big(v).testBit(0) ? 1 : 0;
    }
}
