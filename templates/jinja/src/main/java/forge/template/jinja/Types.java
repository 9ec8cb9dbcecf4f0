package forge.template.jinja;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The values a template makes that plain Java values do not stand for. Everything else is plain:
 * Java {@code null} is {@code None}, {@link String}, {@link Boolean}, {@link Long} (or
 * {@link java.math.BigInteger} past 64 bits), {@link Double}, {@link List} (a Python list),
 * {@link Map} (a dict, in insertion order).
 */
final class Types {

    private Types() {}

    /**
     * Jinja2's {@code Undefined}: a missing variable, key or attribute. Prints nothing, is false,
     * iterates as empty and has length 0; reading an attribute or item of it fails with
     * {@link #hint}, as Jinja2's {@code UndefinedError} does.
     */
    record Undefined(String hint) {
        static final Undefined MISSING = new Undefined("value is undefined");

        static Undefined name(String name) {
            return new Undefined("'" + name + "' is undefined");
        }
    }

    /** {@code markupsafe.Markup}: text marked safe ({@code |safe}); a plain string added to it is HTML-escaped. */
    record Markup(String text) {
        @Override
        public String toString() {
            return text;
        }
    }

    /** A Python tuple: indexes and unpacks as a list, prints {@code ('a', 1)}, never equals a list. */
    static final class Tuple extends AbstractList<Object> {
        private final Object[] items;

        Tuple(Object... items) {
            this.items = items;
        }

        Tuple(List<?> items) {
            this.items = items.toArray();
        }

        @Override
        public Object get(int index) {
            return items[index];
        }

        @Override
        public int size() {
            return items.length;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Tuple t && Arrays.equals(items, t.items);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(items);
        }
    }

    /**
     * What {@code map}, {@code select}, {@code reject}, {@code selectattr} and {@code rejectattr}
     * give: a Python generator. It iterates (here as often as asked, held as a list) but is always
     * true, has no length and is not JSON: {@code tools | map(attribute='function') | tojson} fails
     * in transformers ("Object of type generator is not JSON serializable"), so it fails here too.
     */
    static final class Generator extends ArrayList<Object> {}

    /** Jinja2's {@code namespace(...)}: the one object whose attributes {@code {% set ns.x = ... %}} may assign. */
    static final class Namespace {
        final Map<String, Object> attributes = new LinkedHashMap<>();
    }

    /** Anything a template can call: a macro, a global function, a bound method, {@code loop.cycle}. */
    @FunctionalInterface
    interface Callable {
        Object call(Interpreter in, List<Object> args, Map<String, Object> kwargs, int line);
    }

    /** A callable with a name for {@code repr}: a global, a macro, a bound method. */
    record Named(String name, Callable body) implements Callable {
        @Override
        public Object call(Interpreter in, List<Object> args, Map<String, Object> kwargs, int line) {
            return body.call(in, args, kwargs, line);
        }
    }
}
