package forge.template.jinja;

import forge.lib.text.PythonText;
import forge.template.jinja.Types.Markup;
import forge.template.jinja.Types.Tuple;
import forge.template.jinja.Types.Undefined;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Jinja2's built-in filters ({@code jinja2/filters.py}) with their arguments by position or
 * keyword, and transformers' {@code tojson} ({@code json.dumps} with {@code ensure_ascii=False}
 * and its other arguments passed on). Strings are compared case-insensitively where Jinja2's
 * {@code case_sensitive=False} default says so.
 */
final class Filters {

    private Filters() {}

    /** The argument at {@code index} or named {@code name}, else {@code fallback}. */
    static Object arg(List<Object> args, Map<String, Object> kwargs, int index, String name, Object fallback) {
        if (kwargs.containsKey(name)) {
            return kwargs.get(name);
        }
        return index < args.size() ? args.get(index) : fallback;
    }

    static boolean has(String name) {
        return switch (name) {
            case "abs",
                    "attr",
                    "batch",
                    "capitalize",
                    "center",
                    "count",
                    "d",
                    "default",
                    "dictsort",
                    "e",
                    "escape",
                    "first",
                    "float",
                    "forceescape",
                    "format",
                    "groupby",
                    "indent",
                    "int",
                    "items",
                    "join",
                    "last",
                    "length",
                    "list",
                    "lower",
                    "map",
                    "max",
                    "min",
                    "reject",
                    "rejectattr",
                    "replace",
                    "reverse",
                    "round",
                    "safe",
                    "select",
                    "selectattr",
                    "sort",
                    "string",
                    "striptags",
                    "sum",
                    "title",
                    "tojson",
                    "trim",
                    "truncate",
                    "unique",
                    "upper",
                    "wordcount" -> true;
            default -> false;
        };
    }

    static Object apply(
            Interpreter in, String name, Object v, List<Object> args, Map<String, Object> kwargs, int line) {
        return switch (name) {
            case "abs" -> {
                if (!Values.isNumber(v)) {
                    throw JinjaException.python("bad operand type for abs(): '" + Values.typeName(v) + "'");
                }
                yield Values.isFloat(v)
                        ? Math.abs(Values.asDouble(v))
                        : Values.normal(Values.big(v).abs());
            }
            case "attr" -> Values.getattr(v, Values.str(arg(args, kwargs, 0, "name", "")));
            case "batch" -> {
                long n = number(arg(args, kwargs, 0, "linecount", 1L));
                Object fill = arg(args, kwargs, 1, "fill_with", null);
                boolean filling = args.size() > 1 || kwargs.containsKey("fill_with");
                List<Object> out = new ArrayList<>();
                List<Object> row = new ArrayList<>();
                for (Object x : Values.iterate(v)) {
                    if (row.size() == n) {
                        out.add(row);
                        row = new ArrayList<>();
                    }
                    row.add(x);
                }
                if (!row.isEmpty()) {
                    while (filling && row.size() < n) {
                        row.add(fill);
                    }
                    out.add(row);
                }
                yield out;
            }
            case "capitalize" -> PythonText.capitalize(Values.str(v));
            case "center" -> center(Values.str(v), (int) number(arg(args, kwargs, 0, "width", 80L)), " ");
            case "count", "length" -> Values.length(v);
            case "d", "default" -> {
                Object fallback = arg(args, kwargs, 0, "default_value", "");
                boolean bool = Values.truthy(arg(args, kwargs, 1, "boolean", false));
                yield v instanceof Undefined || bool && !Values.truthy(v) ? fallback : v;
            }
            case "dictsort" -> {
                boolean caseSensitive = Values.truthy(arg(args, kwargs, 0, "case_sensitive", false));
                String by = Values.str(arg(args, kwargs, 1, "by", "key"));
                boolean reverse = Values.truthy(arg(args, kwargs, 2, "reverse", false));
                int pos = switch (by) {
                    case "key" -> 0;
                    case "value" -> 1;
                    default -> throw JinjaException.python("You can only sort by either \"key\" or \"value\"");
                };
                List<Object> pairs = items(v);
                sort(pairs, x -> ((Tuple) x).get(pos), caseSensitive, reverse);
                yield pairs;
            }
            case "e", "escape" -> v instanceof Markup ? v : new Markup(escape(Values.str(v)));
            case "forceescape" -> new Markup(escape(Values.str(v)));
            case "first" -> {
                List<?> items = Values.iterate(v);
                yield items.isEmpty() ? new Undefined("No first item, sequence was empty.") : items.getFirst();
            }
            case "last" -> {
                List<?> items = Values.iterate(v);
                yield items.isEmpty() ? new Undefined("No last item, sequence was empty.") : items.getLast();
            }
            case "float" -> toFloat(v, arg(args, kwargs, 0, "default", 0.0));
            case "int" ->
                toInt(v, arg(args, kwargs, 0, "default", 0L), (int) number(arg(args, kwargs, 1, "base", 10L)));
            case "format" -> {
                if (!args.isEmpty() && !kwargs.isEmpty()) {
                    throw JinjaException.python("can't handle positional and keyword arguments at the same time");
                }
                yield Format.printf(
                        Values.str(v), kwargs.isEmpty() ? new Tuple(args) : new LinkedHashMap<Object, Object>(kwargs));
            }
            case "groupby" ->
                groupby(
                        v,
                        arg(args, kwargs, 0, "attribute", null),
                        arg(args, kwargs, 1, "default", null),
                        Values.truthy(arg(args, kwargs, 2, "case_sensitive", false)));
            case "indent" ->
                indent(
                        Values.str(v),
                        arg(args, kwargs, 0, "width", 4L),
                        Values.truthy(arg(args, kwargs, 1, "first", false)),
                        Values.truthy(arg(args, kwargs, 2, "blank", false)));
            case "items" -> v instanceof Undefined ? new ArrayList<>() : items(v);
            case "join" -> {
                String sep = Values.str(arg(args, kwargs, 0, "d", ""));
                Object attribute = arg(args, kwargs, 1, "attribute", null);
                StringBuilder sb = new StringBuilder();
                boolean first = true;
                for (Object x : Values.iterate(v)) {
                    if (!first) {
                        sb.append(sep);
                    }
                    first = false;
                    String part = Values.str(attribute == null ? x : attribute(x, attribute));
                    in.charge(sb.length() + (long) part.length(), line);
                    sb.append(part);
                }
                yield sb.toString();
            }
            case "list" -> new ArrayList<>(Values.iterate(v));
            case "lower" -> Values.str(v).toLowerCase(Locale.ROOT);
            case "upper" -> Values.str(v).toUpperCase(Locale.ROOT);
            case "title" -> title(Values.str(v));
            case "map" -> map(in, v, args, kwargs, line);
            case "max", "min" -> {
                boolean caseSensitive = Values.truthy(arg(args, kwargs, 0, "case_sensitive", false));
                Object attribute = arg(args, kwargs, 1, "attribute", null);
                List<Object> items = new ArrayList<>(Values.iterate(v));
                if (items.isEmpty()) {
                    yield new Undefined("No aggregated item, sequence was empty.");
                }
                Comparator<Object> order = order(x -> attribute == null ? x : attribute(x, attribute), caseSensitive);
                Object best = items.getFirst();
                for (Object x : items) {
                    int c = order.compare(x, best);
                    if (name.equals("max") ? c > 0 : c < 0) {
                        best = x;
                    }
                }
                yield best;
            }
            case "select", "reject" -> select(in, v, args, kwargs, null, name.equals("select"), line);
            case "selectattr", "rejectattr" -> {
                if (args.isEmpty()) {
                    throw JinjaException.python("Missing parameter for attribute name");
                }
                yield select(
                        in, v, args.subList(1, args.size()), kwargs, args.getFirst(), name.equals("selectattr"), line);
            }
            case "replace" -> {
                String s = Values.str(v);
                String old = Values.str(arg(args, kwargs, 0, "old", ""));
                String with = Values.str(arg(args, kwargs, 1, "new", ""));
                Object count = arg(args, kwargs, 2, "count", null);
                String out = PythonText.replace(s, old, with, count == null ? -1 : (int) number(count));
                in.charge(out.length(), line);
                yield v instanceof Markup ? new Markup(out) : out;
            }
            case "reverse" -> {
                if (v instanceof String s) {
                    yield new StringBuilder(s).reverse().toString();
                }
                List<Object> items = new ArrayList<>(Values.iterate(v));
                Collections.reverse(items);
                yield items;
            }
            case "round" ->
                round(
                        v,
                        (int) number(arg(args, kwargs, 0, "precision", 0L)),
                        Values.str(arg(args, kwargs, 1, "method", "common")));
            case "safe" -> v instanceof Markup ? v : new Markup(Values.str(v));
            case "sort" -> {
                boolean reverse = Values.truthy(arg(args, kwargs, 0, "reverse", false));
                boolean caseSensitive = Values.truthy(arg(args, kwargs, 1, "case_sensitive", false));
                Object attribute = arg(args, kwargs, 2, "attribute", null);
                List<Object> items = new ArrayList<>(Values.iterate(v));
                sort(items, x -> attribute == null ? x : attribute(x, attribute), caseSensitive, reverse);
                yield items;
            }
            case "string" -> v instanceof Markup ? v : Values.str(v);
            case "striptags" ->
                PythonText.strip(
                        Values.str(v).replaceAll("<!--.*?-->|<[^>]*>", "").replaceAll("\\s+", " "));
            case "sum" -> {
                Object attribute = arg(args, kwargs, 0, "attribute", null);
                Object total = arg(args, kwargs, 1, "start", 0L);
                for (Object x : Values.iterate(v)) {
                    total = Operators.binary(in, "+", total, attribute == null ? x : attribute(x, attribute), line);
                }
                yield total;
            }
            case "tojson" -> tojson(v, args, kwargs);
            case "trim" -> {
                Object chars = arg(args, kwargs, 0, "chars", null);
                yield chars == null
                        ? PythonText.strip(Values.str(v))
                        : PythonText.strip(Values.str(v), Values.str(chars));
            }
            case "truncate" -> {
                String s = Values.str(v);
                int length = (int) number(arg(args, kwargs, 0, "length", 255L));
                boolean killwords = Values.truthy(arg(args, kwargs, 1, "killwords", false));
                String end = Values.str(arg(args, kwargs, 2, "end", "..."));
                int leeway = (int) number(arg(args, kwargs, 3, "leeway", 5L));
                if (s.length() <= length + leeway) {
                    yield s;
                }
                if (killwords) {
                    yield s.substring(0, Math.max(0, length - end.length())) + end;
                }
                String cut = s.substring(0, Math.max(0, length - end.length()));
                int space = cut.lastIndexOf(' ');
                yield (space >= 0 ? cut.substring(0, space) : cut) + end;
            }
            case "unique" -> {
                boolean caseSensitive = Values.truthy(arg(args, kwargs, 0, "case_sensitive", false));
                Object attribute = arg(args, kwargs, 1, "attribute", null);
                List<Object> out = new ArrayList<>();
                List<Object> seen = new ArrayList<>();
                for (Object x : Values.iterate(v)) {
                    Object k = fold(attribute == null ? x : attribute(x, attribute), caseSensitive);
                    if (seen.stream().noneMatch(s -> Values.eq(s, k))) {
                        seen.add(k);
                        out.add(x);
                    }
                }
                yield out;
            }
            case "wordcount" -> (long) PythonText.split(Values.str(v), null, -1).size();
            default -> throw new JinjaException("No filter named '" + name + "'.", line);
        };
    }

    // ---- the filters' parts

    /** {@code tojson} as transformers defines it: {@code json.dumps(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)}. */
    static String tojson(Object v, List<Object> args, Map<String, Object> kwargs) {
        var writer = Values.json().ensureAscii(Values.truthy(arg(args, kwargs, 0, "ensure_ascii", false)));
        Object indent = arg(args, kwargs, 1, "indent", null);
        if (indent instanceof String pad) {
            writer = writer.indent(pad);
        } else if (indent != null && Values.isNumber(indent)) {
            writer = writer.indent((int) number(indent));
        }
        if (arg(args, kwargs, 2, "separators", null) instanceof List<?> pair && pair.size() == 2) {
            writer = writer.separators(Values.str(pair.get(0)), Values.str(pair.get(1)));
        }
        writer = writer.sortKeys(Values.truthy(arg(args, kwargs, 3, "sort_keys", false)));
        try {
            return writer.dumps(v);
        } catch (IllegalArgumentException e) {
            throw JinjaException.python(e.getMessage());
        }
    }

    /** A dict's items as (key, value) tuples: {@code |items}, {@code dict.items()}, {@code |dictsort}. */
    static List<Object> items(Object v) {
        if (!(v instanceof Map<?, ?> m)) {
            throw JinjaException.python("Can only get item pairs from a mapping.");
        }
        List<Object> out = new ArrayList<>(m.size());
        m.forEach((k, x) -> out.add(new Tuple(k, x)));
        return out;
    }

    /** {@code markupsafe.escape}: the five characters HTML needs escaped, quotes as numeric references. */
    static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 8);
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

    static long number(Object v) {
        if (!Values.isInt(v)) {
            throw JinjaException.python("'" + Values.typeName(v) + "' object cannot be interpreted as an integer");
        }
        Long l = Values.asLong(v);
        return l == null ? Long.MAX_VALUE : l;
    }

    /** {@code attribute='a.b'} or {@code attribute=0} as Jinja2's {@code make_attrgetter} reads it: dotted, digits as indexes. */
    static Object attribute(Object x, Object attribute) {
        if (!(attribute instanceof String path)) {
            return Values.getitem(x, attribute);
        }
        Object v = x;
        for (String part : path.split("\\.")) {
            v = !part.isEmpty() && part.chars().allMatch(Character::isDigit)
                    ? Values.getitem(v, Long.parseLong(part))
                    : Values.getitem(v, part);
        }
        return v;
    }

    private static Object fold(Object v, boolean caseSensitive) {
        return !caseSensitive && v instanceof String s ? s.toLowerCase(Locale.ROOT) : v;
    }

    private static Comparator<Object> order(UnaryOperator<Object> key, boolean caseSensitive) {
        return (a, b) -> Operators.order("<", fold(key.apply(a), caseSensitive), fold(key.apply(b), caseSensitive));
    }

    private static void sort(List<Object> items, UnaryOperator<Object> key, boolean caseSensitive, boolean reverse) {
        Comparator<Object> order = order(key, caseSensitive);
        items.sort(reverse ? order.reversed() : order);
    }

    private static Object toFloat(Object v, Object fallback) {
        if (Values.isNumber(v)) {
            return Values.asDouble(v);
        }
        try {
            return Double.parseDouble(PythonText.strip(Values.str(v)).replace("_", ""));
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    private static Object toInt(Object v, Object fallback, int base) {
        if (Values.isFloat(v)) {
            double d = Values.asDouble(v);
            return Double.isFinite(d) ? Values.normal(new BigDecimal(d).toBigInteger()) : fallback;
        }
        if (Values.isInt(v)) {
            return v instanceof Boolean ? Values.asLong(v) : v;
        }
        String s = PythonText.strip(Values.str(v)).replace("_", "");
        try {
            if (base == 16 && (s.startsWith("0x") || s.startsWith("0X"))) {
                s = s.substring(2);
            }
            return Values.normal(new BigInteger(s, base));
        } catch (NumberFormatException e) {
            try {
                return Values.normal(new BigDecimal(s).toBigInteger());
            } catch (NumberFormatException notFloat) {
                return fallback;
            }
        }
    }

    private static Object round(Object v, int precision, String method) {
        RoundingMode mode = switch (method) {
            case "common" -> RoundingMode.HALF_EVEN;
            case "floor" -> RoundingMode.FLOOR;
            case "ceil" -> RoundingMode.CEILING;
            default -> throw JinjaException.python("method must be common, ceil or floor");
        };
        if (!Values.isNumber(v)) {
            throw JinjaException.python("type " + Values.typeName(v) + " doesn't define __round__ method");
        }
        if (Values.isInt(v) && mode == RoundingMode.HALF_EVEN) {
            return v instanceof Boolean ? Values.asLong(v) : v; // round(int) is the int
        }
        double d = Values.asDouble(v);
        if (!Double.isFinite(d)) {
            return d;
        }
        return new BigDecimal(d).setScale(precision, mode).doubleValue();
    }

    /**
     * Jinja2's {@code title}, which is not {@code str.title()}: words begin after a run of
     * whitespace, {@code -}, {@code (}, <code>{</code>, {@code [} or {@code <}, so {@code it's} stays {@code It's}.
     */
    private static String title(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        boolean start = true;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean separator = PythonText.isSpace(c) || c == '-' || c == '(' || c == '{' || c == '[' || c == '<';
            if (separator) {
                sb.append(c);
                start = true;
            } else {
                sb.append(start ? Character.toUpperCase(c) : Character.toLowerCase(c));
                start = false;
            }
        }
        return sb.toString();
    }

    static String center(String s, int width, String fill) {
        int n = s.codePointCount(0, s.length());
        if (width <= n) {
            return s;
        }
        int total = width - n;
        // CPython's str.center: the odd space goes left when the width is odd, as its pad() does
        int left = total / 2 + (total & width & 1);
        return fill.repeat(left) + s + fill.repeat(total - left);
    }

    private static String indent(String s, Object width, boolean first, boolean blank) {
        String pad = width instanceof String w ? w : " ".repeat((int) Math.max(0, number(width)));
        List<String> lines = PythonText.splitlines(s + "\n");
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

    /** Jinja2's {@code map}; like Jinja2's, a false value ({@code None}, empty) maps to nothing. */
    private static Object map(Interpreter in, Object v, List<Object> args, Map<String, Object> kwargs, int line) {
        List<Object> out = new Types.Generator();
        if (!Values.truthy(v)) {
            return out;
        }
        if (args.isEmpty() && kwargs.containsKey("attribute")) {
            Object attribute = kwargs.get("attribute");
            boolean hasDefault = kwargs.containsKey("default");
            for (Object x : Values.iterate(v)) {
                Object y = attribute(x, attribute);
                out.add(hasDefault && y instanceof Undefined ? kwargs.get("default") : y);
            }
            return out;
        }
        if (args.isEmpty()) {
            throw JinjaException.python("map requires a filter argument");
        }
        String filter = Values.str(args.getFirst());
        List<Object> rest = args.subList(1, args.size());
        for (Object x : Values.iterate(v)) {
            out.add(apply(in, filter, x, rest, kwargs, line));
        }
        return out;
    }

    private static Object select(
            Interpreter in,
            Object v,
            List<Object> args,
            Map<String, Object> kwargs,
            Object attribute,
            boolean keep,
            int line) {
        // Jinja2's select_or_reject: a false value (None, empty) selects nothing, where iterating it would fail
        List<Object> out = new Types.Generator();
        if (!Values.truthy(v)) {
            return out;
        }
        for (Object x : Values.iterate(v)) {
            Object subject = attribute == null ? x : attribute(x, attribute);
            boolean ok = args.isEmpty()
                    ? Values.truthy(subject)
                    : Tests.apply(in, Values.str(args.getFirst()), subject, args.subList(1, args.size()), kwargs, line);
            if (ok == keep) {
                out.add(x);
            }
        }
        return out;
    }

    private static Object groupby(Object v, Object attribute, Object fallback, boolean caseSensitive) {
        List<Object> items = new ArrayList<>(Values.iterate(v));
        UnaryOperator<Object> key = x -> {
            Object k = attribute(x, attribute);
            return k instanceof Undefined ? fallback : k;
        };
        sort(items, key, caseSensitive, false);
        List<Object> out = new ArrayList<>();
        Object current = null;
        List<Object> group = null;
        for (Object x : items) {
            Object k = key.apply(x);
            if (group == null || !Values.eq(fold(k, caseSensitive), fold(current, caseSensitive))) {
                group = new ArrayList<>();
                current = k;
                out.add(new Tuple(k, group));
            }
            group.add(x);
        }
        return out;
    }
}
