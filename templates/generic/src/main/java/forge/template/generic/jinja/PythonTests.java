package forge.template.generic.jinja;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.exptest.ExpTest;
import com.hubspot.jinjava.objects.Namespace;
import com.hubspot.jinjava.objects.SafeString;
import java.math.BigDecimal;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Jinja2's tests ({@code x is string}) on Python's types, where Jinjava's answer otherwise:
 * a string is iterable and a sequence, so is a dict, and so is Undefined; {@code None} is
 * defined and is none while Undefined is neither; {@code True} is a number but not an integer.
 */
final class PythonTests {

    private PythonTests() {
    }

    /** Every test this class defines, to register over Jinjava's of the same names. */
    static List<ExpTest> all() {
        return List.of(
                test("defined", v -> v != null),
                test("undefined", v -> v == null),
                test("none", v -> v == PyNone.NONE),
                test("string", PythonTests::isString),
                test("mapping", v -> v instanceof Map<?, ?> && !(v instanceof Namespace)),
                // Undefined iterates (as nothing) and has a length (0): it is both
                test("iterable", v -> v == null || isString(v) || v instanceof Collection<?>
                        || v instanceof Map<?, ?> && !(v instanceof Namespace) || v instanceof Object[]),
                test("sequence", v -> v == null || isString(v) || v instanceof Collection<?>
                        || v instanceof Map<?, ?> && !(v instanceof Namespace) || v instanceof Object[]),
                test("number", PythonValues::isNumber),
                test("integer", v -> v instanceof Number && !(v instanceof Double || v instanceof Float || v instanceof BigDecimal)),
                test("float", v -> v instanceof Double || v instanceof Float || v instanceof BigDecimal),
                test("boolean", v -> v instanceof Boolean),
                test("true", v -> Boolean.TRUE.equals(v)),
                test("false", v -> Boolean.FALSE.equals(v)),
                new Compare("eq", true), new Compare("equalto", true), new Compare("==", true),
                new Compare("ne", false), new Compare("!=", false),
                new SameAs());
    }

    private static boolean isString(Object v) {
        return v instanceof String || v instanceof SafeString;
    }

    private static ExpTest test(String name, Predicate<Object> predicate) {
        return new ExpTest() {
            @Override
            public String getName() {
                return name;
            }

            @Override
            public boolean evaluate(Object var, JinjavaInterpreter interpreter, Object... args) {
                return predicate.test(var);
            }
        };
    }

    /** {@code x is eq y} and its aliases, with Python's {@code ==}. */
    private record Compare(String getName, boolean equal) implements ExpTest {
        @Override
        public boolean evaluate(Object var, JinjavaInterpreter interpreter, Object... args) {
            if (args.length != 1) {
                throw new PythonValues.PythonError("test '" + getName + "' takes one argument");
            }
            return PythonValues.eq(var, args[0]) == equal;
        }
    }

    /** {@code x is sameas y}: Python's {@code is}, identity (booleans and None are singletons there). */
    private static final class SameAs implements ExpTest {
        @Override
        public String getName() {
            return "sameas";
        }

        @Override
        public boolean evaluate(Object var, JinjavaInterpreter interpreter, Object... args) {
            if (args.length != 1) {
                throw new PythonValues.PythonError("test 'sameas' takes one argument");
            }
            Object other = args[0];
            return var instanceof Boolean b ? b.equals(other) : var == other;
        }
    }
}
