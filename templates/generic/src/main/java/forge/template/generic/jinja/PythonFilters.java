package forge.template.generic.jinja;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.exptest.ExpTest;
import com.hubspot.jinjava.lib.filter.Filter;
import com.hubspot.jinjava.objects.SafeString;
import forge.template.toolkit.PythonJson;
import forge.template.toolkit.PythonText;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Filters whose Jinjava versions give other values than Jinja2's under transformers:
 * {@code tojson} (Python's {@code json.dumps}), {@code trim}, {@code string} and {@code join}
 * (Python's {@code str()}), {@code length} (code points, a {@code TypeError} for what has no
 * length), {@code default} (Jinjava turned a default of {@code false} into the string
 * {@code "false"}, which is true), {@code dictsort}, {@code min}, {@code max}, {@code sum},
 * {@code indent}, {@code round}, {@code select}, {@code reject} and {@code format} with Jinja2's arguments and results, and {@code items},
 * which Jinjava lacks.
 */
final class PythonFilters {

    private PythonFilters() {
    }

    /** Every filter this class defines, to register over Jinjava's of the same names. */
    static List<Filter> all() {
        return List.of(new ToJson(), new Trim(), new Str(), new Join(), new Length("length"), new Length("count"),
                new Default("default"), new Default("d"), new Items(), new DictSort(), new Extreme("min", -1),
                new Extreme("max", 1), new Sum(), new Indent(), new Round(), new Select("select", true),
                new Select("reject", false), new Format(), new ToList(), new Case("upper"), new Case("lower"),
                new Case("capitalize"), new Case("title"));
    }

    /** A filter's argument: the keyword if given, else the positional one at {@code index}, else {@code fallback}. */
    private static Object arg(Object[] args, Map<String, Object> kwargs, int index, String name, Object fallback) {
        if (kwargs.containsKey(name)) {
            return kwargs.get(name);
        }
        return index < args.length ? args[index] : fallback;
    }

    /** The base of filters that take Python arguments: Jinjava calls the string form only for old-style filters. */
    private abstract static class PythonFilter implements Filter {
        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
            return filter(var, interpreter, (Object[]) args, Map.of());
        }

        @Override
        public abstract Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs);
    }

    /** A filter class registered under several names (an alias, or a variant it switches on). */
    private abstract static class NamedFilter extends PythonFilter {
        final String name;

        NamedFilter(String name) {
            this.name = name;
        }

        @Override
        public String getName() {
            return name;
        }
    }

    /**
     * {@code tojson} as transformers defines it: {@code json.dumps(x, ensure_ascii=False,
     * indent=None, separators=None, sort_keys=False)}, each argument by position or keyword.
     * Jinjava's is Jackson's compact form.
     */
    static final class ToJson extends PythonFilter {
        @Override
        public String getName() {
            return "tojson";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            boolean ensureAscii = PythonValues.truthy(arg(args, kwargs, 0, "ensure_ascii", false));
            Object indent = arg(args, kwargs, 1, "indent", PyNone.NONE);
            Object separators = arg(args, kwargs, 2, "separators", PyNone.NONE);
            boolean sortKeys = PythonValues.truthy(arg(args, kwargs, 3, "sort_keys", false));
            PythonJson.Writer json = PythonJson.writer().ensureAscii(ensureAscii).sortKeys(sortKeys).view(PythonValues.JINJAVA);
            json = switch (indent) {
                case null -> json;
                case PyNone n -> json;
                case Number n -> json.indent(n.intValue());
                default -> json.indent(PythonValues.str(indent));
            };
            if (separators instanceof List<?> pair && pair.size() == 2) {
                json = json.separators(PythonValues.str(pair.get(0)), PythonValues.str(pair.get(1)));
            }
            try {
                return json.dumps(var);
            } catch (IllegalArgumentException e) {
                throw new PythonValues.PythonError(e.getMessage()); // json.dumps's TypeError
            }
        }
    }

    /** {@code trim} as Jinja2's: Python's {@code str(x).strip([chars])}, wider whitespace than Java's. */
    static final class Trim extends PythonFilter {
        @Override
        public String getName() {
            return "trim";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            String s = PythonValues.str(var);
            Object chars = arg(args, kwargs, 0, "chars", null);
            return chars == null || chars == PyNone.NONE ? PythonText.strip(s) : PythonText.strip(s, PythonValues.str(chars));
        }
    }

    /** {@code string}: Python's {@code str()} ({@code None}, {@code True}, {@code {'a': 1}}); Jinjava printed Java's. */
    static final class Str extends PythonFilter {
        @Override
        public String getName() {
            return "string";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            return var instanceof SafeString ? var : PythonValues.str(var);
        }
    }

    /** {@code join(d='', attribute=None)}: the items' {@code str()} between separators. */
    static final class Join extends PythonFilter {
        @Override
        public String getName() {
            return "join";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            String separator = PythonValues.str(arg(args, kwargs, 0, "d", ""));
            Object attribute = arg(args, kwargs, 1, "attribute", null);
            StringBuilder sb = new StringBuilder();
            boolean first = true;
            for (Object item : PythonValues.iterate(var)) {
                if (!first) {
                    sb.append(separator);
                }
                first = false;
                if (attribute != null && attribute != PyNone.NONE) {
                    item = interpreter.resolveProperty(item, PythonValues.str(attribute));
                }
                sb.append(PythonValues.str(item));
            }
            return sb.toString();
        }
    }

    /** {@code length} and {@code count}: Python's {@code len()}, characters counted as code points. */
    record Length(String getName) implements Filter {
        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
            return (long) switch (var) {
                case null -> 0;
                case String s -> s.codePointCount(0, s.length());
                case SafeString s -> s.toString().codePointCount(0, s.toString().length());
                case Collection<?> c -> c.size();
                case Map<?, ?> m -> m.size();
                case Object[] a -> a.length;
                default -> throw new PythonValues.PythonError("object of type '" + PythonValues.typeName(var) + "' has no len()");
            };
        }
    }

    /** {@code default(value, boolean=False)}: the value as given (Jinjava's made it a string) when Undefined, or falsy if asked. */
    static final class Default extends NamedFilter {
        Default(String name) {
            super(name);
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            Object fallback = arg(args, kwargs, 0, "default_value", "");
            boolean falsy = PythonValues.truthy(arg(args, kwargs, 1, "boolean", false));
            return var == null || falsy && !PythonValues.truthy(var) ? fallback : var;
        }
    }

    /** {@code items}: a mapping's (key, value) pairs, nothing for Undefined. */
    static final class Items extends PythonFilter {
        @Override
        public String getName() {
            return "items";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            if (var == null) {
                return List.of();
            }
            if (!(var instanceof Map<?, ?> map)) {
                throw new PythonValues.PythonError("Can only get item pairs from a mapping.");
            }
            List<Object> out = new ArrayList<>(map.size());
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.add(PyTuple.of(e.getKey(), e.getValue()));
            }
            return out;
        }
    }

    /** Python's ordering of two template values ({@code sorted()}'s), strings folded to lower case unless asked not to. */
    private static int compare(Object a, Object b, boolean caseSensitive) {
        if (!caseSensitive && a instanceof CharSequence x && b instanceof CharSequence y) {
            return x.toString().toLowerCase(Locale.ROOT).compareTo(y.toString().toLowerCase(Locale.ROOT));
        }
        if (PythonValues.isNumber(a) && PythonValues.isNumber(b)) {
            return PythonValues.eq(a, b) ? 0 : Double.compare(number(a), number(b));
        }
        if (a instanceof CharSequence x && b instanceof CharSequence y) {
            return x.toString().compareTo(y.toString());
        }
        throw new PythonValues.PythonError("'<' not supported between instances of '" + PythonValues.typeName(a) + "' and '"
                + PythonValues.typeName(b) + "'");
    }

    private static double number(Object v) {
        return v instanceof Boolean b ? (b ? 1 : 0) : ((Number) v).doubleValue();
    }

    /** {@code list}: Python's {@code list()}: a string's characters, a dict's keys, nothing from Undefined. */
    static final class ToList extends PythonFilter {
        @Override
        public String getName() {
            return "list";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            return new ArrayList<Object>(PythonValues.iterate(var));
        }
    }

    /**
     * {@code upper}, {@code lower}, {@code capitalize}, {@code title}: on Python's {@code str()} of
     * any value (Undefined is ""), where Jinjava passed non-strings through unchanged.
     */
    static final class Case extends NamedFilter {
        Case(String name) {
            super(name);
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            String s = PythonValues.str(var);
            String out = switch (name) {
                case "upper" -> s.toUpperCase(Locale.ROOT);
                case "lower" -> s.toLowerCase(Locale.ROOT);
                case "capitalize" -> PythonText.capitalize(s);
                default -> title(s);
            };
            return var instanceof SafeString ? new SafeString(out) : out;
        }
    }

    /**
     * Jinja2's {@code title} filter, not {@code str.title()}: words start after {@code -},
     * whitespace and opening brackets only ({@code it's} stays {@code It's}).
     */
    static String title(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        boolean start = true;
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            i += Character.charCount(c);
            boolean separator = c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || c < 0x10000 && PythonText.isSpace((char) c);
            sb.append(separator ? Character.toString(c)
                    : start ? Character.toString(c).toUpperCase(Locale.ROOT) : Character.toString(c).toLowerCase(Locale.ROOT));
            start = separator;
        }
        return sb.toString();
    }

    /** {@code format(*args, **kwargs)}: {@code str(value) % args}, Python's printf-style formatting. */
    static final class Format extends PythonFilter {
        @Override
        public String getName() {
            return "format";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            if (args.length > 0 && !kwargs.isEmpty()) {
                throw new PythonValues.PythonError("can't handle positional and keyword arguments at the same time");
            }
            return PythonFormat.printf(PythonValues.str(var), kwargs.isEmpty() ? new PyTuple(Arrays.asList(args)) : kwargs);
        }
    }

    /** {@code select(test, *args)} and {@code reject}: the items that pass (fail) a test, or are true (false) without one. */
    static final class Select extends NamedFilter {
        private final boolean keep;

        Select(String name, boolean keep) {
            super(name);
            this.keep = keep;
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            ExpTest test = null;
            if (args.length > 0) {
                test = interpreter.getContext().getExpTest(PythonValues.str(args[0]));
                if (test == null) {
                    throw new PythonValues.PythonError("No test named '" + PythonValues.str(args[0]) + "'.");
                }
            }
            Object[] testArgs = args.length > 1 ? Arrays.copyOfRange(args, 1, args.length) : new Object[0];
            List<Object> out = new ArrayList<>();
            for (Object item : PythonValues.iterate(var)) {
                boolean pass = test == null ? PythonValues.truthy(item) : test.evaluate(item, interpreter, testArgs);
                if (pass == keep) {
                    out.add(item);
                }
            }
            return out;
        }
    }

    /** {@code dictsort(case_sensitive=False, by='key', reverse=False)}: a dict's (key, value) pairs in order. */
    static final class DictSort extends PythonFilter {
        @Override
        public String getName() {
            return "dictsort";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            if (!(var instanceof Map<?, ?> map)) {
                throw new PythonValues.PythonError("You can only sort by either a mapping.");
            }
            boolean caseSensitive = PythonValues.truthy(arg(args, kwargs, 0, "case_sensitive", false));
            String by = PythonValues.str(arg(args, kwargs, 1, "by", "key"));
            boolean reverse = PythonValues.truthy(arg(args, kwargs, 2, "reverse", false));
            int at = switch (by) {
                case "key" -> 0;
                case "value" -> 1;
                default -> throw new PythonValues.PythonError("You can only sort by either \"key\" or \"value\"");
            };
            List<PyTuple> pairs = new ArrayList<>(map.size());
            map.forEach((k, v) -> pairs.add(PyTuple.of(k, v)));
            Comparator<PyTuple> order = (x, y) -> compare(x.get(at), y.get(at), caseSensitive);
            pairs.sort(reverse ? order.reversed() : order);
            return new ArrayList<Object>(pairs);
        }
    }

    /** {@code min} and {@code max(case_sensitive=False, attribute=None)}: Undefined for nothing. */
    static final class Extreme extends NamedFilter {
        private final int sign;

        Extreme(String name, int sign) {
            super(name);
            this.sign = sign;
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            boolean caseSensitive = PythonValues.truthy(arg(args, kwargs, 0, "case_sensitive", false));
            Object attribute = arg(args, kwargs, 1, "attribute", null);
            Object best = null;
            Object bestKey = null;
            for (Object item : PythonValues.iterate(var)) {
                Object key = attribute == null || attribute == PyNone.NONE ? item
                        : interpreter.resolveProperty(item, PythonValues.str(attribute));
                if (bestKey == null || sign * compare(key, bestKey, caseSensitive) > 0) {
                    best = item;
                    bestKey = key;
                }
            }
            return best;
        }
    }

    /** {@code sum(attribute=None, start=0)}: integers stay integers. */
    static final class Sum extends PythonFilter {
        @Override
        public String getName() {
            return "sum";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            Object attribute = arg(args, kwargs, 0, "attribute", null);
            Object start = arg(args, kwargs, 1, "start", 0L);
            long whole = 0;
            double fraction = 0;
            boolean isFloat = false;
            List<Object> items = new ArrayList<>(PythonValues.iterate(var));
            items.addFirst(start);
            for (Object item : items) {
                Object v = attribute == null || attribute == PyNone.NONE || item == start ? item
                        : interpreter.resolveProperty(item, PythonValues.str(attribute));
                switch (v) {
                    case Boolean b -> whole += b ? 1 : 0;
                    case Double d -> {
                        isFloat = true;
                        fraction += d;
                    }
                    case Float f -> {
                        isFloat = true;
                        fraction += f;
                    }
                    case BigDecimal d -> {
                        isFloat = true;
                        fraction += d.doubleValue();
                    }
                    case Number n -> whole += n.longValue();
                    default -> throw new PythonValues.PythonError(
                            "unsupported operand type(s) for +: 'int' and '" + PythonValues.typeName(v) + "'");
                }
            }
            return isFloat ? (Object) (whole + fraction) : (Object) whole;
        }
    }

    /** {@code indent(width=4, first=False, blank=False)}: every line but the first (unless asked) indented, blank lines not. */
    static final class Indent extends PythonFilter {
        @Override
        public String getName() {
            return "indent";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            Object width = arg(args, kwargs, 0, "width", 4L);
            boolean first = PythonValues.truthy(arg(args, kwargs, 1, "first", false));
            boolean blank = PythonValues.truthy(arg(args, kwargs, 2, "blank", false));
            String pad = width instanceof Number n ? " ".repeat(Math.max(0, n.intValue())) : PythonValues.str(width);
            List<String> lines = PythonText.splitlines(PythonValues.str(var) + "\n");
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < lines.size(); i++) {
                if (i > 0) {
                    sb.append('\n');
                    if (blank || !lines.get(i).isEmpty()) {
                        sb.append(pad);
                    }
                }
                sb.append(lines.get(i));
            }
            return first ? pad + sb : sb.toString();
        }
    }

    /** {@code round(precision=0, method='common')}: Python's {@code round()}, halves to even on the exact binary value. */
    static final class Round extends PythonFilter {
        @Override
        public String getName() {
            return "round";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            int precision = ((Number) arg(args, kwargs, 0, "precision", 0L)).intValue();
            String method = PythonValues.str(arg(args, kwargs, 1, "method", "common"));
            RoundingMode mode = switch (method) {
                case "common" -> RoundingMode.HALF_EVEN;
                case "floor" -> RoundingMode.FLOOR;
                case "ceil" -> RoundingMode.CEILING;
                default -> throw new PythonValues.PythonError("method must be common, ceil or floor");
            };
            if (!PythonValues.isNumber(var)) {
                throw new PythonValues.PythonError("type " + PythonValues.typeName(var) + " doesn't define __round__ method");
            }
            boolean integral = !(var instanceof Double || var instanceof Float || var instanceof BigDecimal);
            if (integral && mode == RoundingMode.HALF_EVEN) {
                return var instanceof Boolean b ? (b ? 1L : 0L) : var; // round(int) is the int
            }
            double d = number(var);
            return new BigDecimal(d).setScale(precision, mode).doubleValue();
        }
    }
}
