package forge.template.jinja;

import forge.lib.text.PythonText;
import forge.template.jinja.Types.Markup;
import forge.template.jinja.Types.Named;
import forge.template.jinja.Types.Tuple;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The Python methods a template may call on its values: {@code str}'s
 * ({@code content.split('</think>')}, {@code m.content.startswith('<tool_response>')},
 * {@code '<x{}>'.format(t)}), {@code dict}'s reading ones ({@code items}, {@code keys},
 * {@code values}, {@code get}) and {@code list}'s ({@code index}, {@code count}), and the ones that
 * change a list or dict ({@code ns.ids.append(x)}): transformers' immutable sandbox refuses
 * those, which makes every tool call of Kimi K2 Instruct's official template fail, so ForgeLM
 * renders what the template means, as the golden corpus does (Jinja2's mutable sandbox). A
 * value the caller handed in read-only stays so.
 */
final class Methods {

    private Methods() {}

    /** {@code obj.name} as a bound method, or null when {@code obj} has no such method. */
    static Named bind(Object obj, String name) {
        return switch (obj) {
            case String s ->
                string(s, name) ? new Named(name, (in, a, k, line) -> string(in, s, name, a, k, line)) : null;
            case Markup m ->
                string(m.text(), name)
                        ? new Named(name, (in, a, k, line) -> string(in, m.text(), name, a, k, line))
                        : null;
            case Map<?, ?> m ->
                switch (name) {
                    case "items", "keys", "values", "get", "copy", "update", "setdefault", "pop", "clear" ->
                        new Named(name, (in, a, k, line) -> readOnly(() -> dict(in, m, name, a, k, line)));
                    default -> null;
                };
            case Tuple t ->
                switch (name) {
                    case "index", "count" -> new Named(name, (in, a, k, line) -> list(in, t, name, a, line));
                    default -> null;
                };
            case List<?> l ->
                switch (name) {
                    case "index", "count", "append", "extend", "insert", "pop", "remove", "clear", "reverse", "copy" ->
                        new Named(name, (in, a, k, line) -> readOnly(() -> list(in, l, name, a, line)));
                    default -> null;
                };
            case null, default -> null;
        };
    }

    private static Object readOnly(Supplier<Object> change) {
        try {
            return change.get();
        } catch (UnsupportedOperationException e) {
            throw JinjaException.python("this value was handed to the template read-only");
        }
    }

    private static boolean string(String s, String name) {
        return switch (name) {
            case "strip",
                    "lstrip",
                    "rstrip",
                    "split",
                    "rsplit",
                    "splitlines",
                    "startswith",
                    "endswith",
                    "upper",
                    "lower",
                    "title",
                    "capitalize",
                    "replace",
                    "find",
                    "rfind",
                    "index",
                    "rindex",
                    "count",
                    "join",
                    "format",
                    "isdigit",
                    "isnumeric",
                    "isdecimal",
                    "isalpha",
                    "isalnum",
                    "isspace",
                    "isupper",
                    "islower",
                    "zfill",
                    "center",
                    "ljust",
                    "rjust",
                    "partition",
                    "rpartition",
                    "removeprefix",
                    "removesuffix",
                    "swapcase",
                    "casefold" -> true;
            default -> false;
        };
    }

    private static String str(List<Object> a, int i) {
        return i < a.size() && a.get(i) != null ? Values.str(a.get(i)) : null;
    }

    private static int integer(List<Object> a, int i, int fallback) {
        return i < a.size() && a.get(i) != null ? (int) Filters.number(a.get(i)) : fallback;
    }

    private static Object string(
            Interpreter in, String s, String name, List<Object> a, Map<String, Object> k, int line) {
        return switch (name) {
            case "strip" -> str(a, 0) == null ? PythonText.strip(s) : PythonText.strip(s, str(a, 0));
            case "lstrip" -> str(a, 0) == null ? PythonText.lstrip(s) : PythonText.lstrip(s, str(a, 0));
            case "rstrip" -> str(a, 0) == null ? PythonText.rstrip(s) : PythonText.rstrip(s, str(a, 0));
            case "split", "rsplit" -> {
                String sep =
                        k.containsKey("sep") ? (k.get("sep") == null ? null : Values.str(k.get("sep"))) : str(a, 0);
                int max = k.containsKey("maxsplit") ? (int) Filters.number(k.get("maxsplit")) : integer(a, 1, -1);
                try {
                    yield new ArrayList<Object>(
                            name.equals("split") ? PythonText.split(s, sep, max) : PythonText.rsplit(s, sep, max));
                } catch (IllegalArgumentException e) {
                    throw JinjaException.python(e.getMessage());
                }
            }
            case "splitlines" -> new ArrayList<Object>(PythonText.splitlines(s));
            case "startswith", "endswith" -> {
                Object arg = a.isEmpty() ? null : a.getFirst();
                List<?> options = arg instanceof Tuple t ? t : List.of(arg == null ? "" : arg);
                boolean hit = false;
                for (Object o : options) {
                    if (!(o instanceof String || o instanceof Markup)) {
                        throw JinjaException.python(
                                name + " first arg must be str or a tuple of str, not " + Values.typeName(o));
                    }
                    hit |= name.equals("startswith") ? s.startsWith(o.toString()) : s.endsWith(o.toString());
                }
                yield hit;
            }
            case "upper" -> s.toUpperCase(Locale.ROOT);
            case "lower", "casefold" -> s.toLowerCase(Locale.ROOT);
            case "title" -> PythonText.title(s);
            case "capitalize" -> PythonText.capitalize(s);
            case "swapcase" -> {
                StringBuilder sb = new StringBuilder(s.length());
                s.codePoints()
                        .forEach(c -> sb.appendCodePoint(
                                Character.isUpperCase(c) ? Character.toLowerCase(c) : Character.toUpperCase(c)));
                yield sb.toString();
            }
            case "replace" -> {
                String out = PythonText.replace(s, str(a, 0), str(a, 1), integer(a, 2, -1));
                in.charge(out.length(), line);
                yield out;
            }
            case "find" -> (long) codePoints(s, s.indexOf(str(a, 0)));
            case "rfind" -> (long) codePoints(s, s.lastIndexOf(str(a, 0)));
            case "index", "rindex" -> {
                int i = name.equals("index") ? s.indexOf(str(a, 0)) : s.lastIndexOf(str(a, 0));
                if (i < 0) {
                    throw JinjaException.python("substring not found");
                }
                yield (long) codePoints(s, i);
            }
            case "count" -> PythonText.count(s, str(a, 0));
            case "join" -> {
                StringBuilder sb = new StringBuilder();
                boolean first = true;
                for (Object x : Values.iterate(a.isEmpty() ? List.of() : a.getFirst())) {
                    if (!(x instanceof String || x instanceof Markup)) {
                        throw JinjaException.python("sequence item " + (first ? 0 : "n") + ": expected str instance, "
                                + Values.typeName(x) + " found");
                    }
                    if (!first) {
                        sb.append(s);
                    }
                    first = false;
                    in.charge(sb.length() + (long) x.toString().length(), line);
                    sb.append(x);
                }
                yield sb.toString();
            }
            case "format" -> Format.format(s, a, k);
            case "isdigit", "isnumeric", "isdecimal" -> PythonText.isDigit(s);
            case "isalpha" -> !s.isEmpty() && s.codePoints().allMatch(Character::isLetter);
            case "isalnum" -> !s.isEmpty() && s.codePoints().allMatch(Character::isLetterOrDigit);
            case "isspace" -> PythonText.isSpace(s);
            case "isupper" ->
                s.codePoints().anyMatch(Character::isUpperCase)
                        && s.codePoints().noneMatch(Character::isLowerCase);
            case "islower" ->
                s.codePoints().anyMatch(Character::isLowerCase)
                        && s.codePoints().noneMatch(Character::isUpperCase);
            case "zfill" -> {
                int width = integer(a, 0, 0);
                int sign = !s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+') ? 1 : 0;
                yield s.length() >= width
                        ? s
                        : s.substring(0, sign) + "0".repeat(width - s.length()) + s.substring(sign);
            }
            case "center" -> Filters.center(s, integer(a, 0, 0), a.size() > 1 ? str(a, 1) : " ");
            case "ljust", "rjust" -> {
                int width = integer(a, 0, 0);
                String fill = a.size() > 1 ? str(a, 1) : " ";
                int n = s.codePointCount(0, s.length());
                String pad = width > n ? fill.repeat(width - n) : "";
                yield name.equals("ljust") ? s + pad : pad + s;
            }
            case "partition", "rpartition" -> {
                String sep = str(a, 0);
                int i = name.equals("partition") ? s.indexOf(sep) : s.lastIndexOf(sep);
                if (i < 0) {
                    yield name.equals("partition") ? new Tuple(s, "", "") : new Tuple("", "", s);
                }
                yield new Tuple(s.substring(0, i), sep, s.substring(i + sep.length()));
            }
            case "removeprefix" ->
                s.startsWith(str(a, 0)) ? s.substring(str(a, 0).length()) : s;
            case "removesuffix" ->
                !str(a, 0).isEmpty() && s.endsWith(str(a, 0))
                        ? s.substring(0, s.length() - str(a, 0).length())
                        : s;
            default -> throw JinjaException.python("'str' object has no attribute '" + name + "'");
        };
    }

    /** A UTF-16 index as Python's code-point index; -1 stays -1. */
    private static int codePoints(String s, int index) {
        return index < 0 ? -1 : s.codePointCount(0, index);
    }

    @SuppressWarnings("unchecked")
    private static Object dict(
            Interpreter in, Map<?, ?> map, String name, List<Object> a, Map<String, Object> k, int line) {
        Map<Object, Object> m = (Map<Object, Object>) map;
        Object key = a.isEmpty() ? null : Values.key(a.getFirst());
        return switch (name) {
            case "items" -> Filters.items(m);
            case "keys" -> new ArrayList<Object>(m.keySet());
            case "values" -> new ArrayList<Object>(m.values());
            case "copy" -> new LinkedHashMap<Object, Object>(m);
            case "update" -> {
                if (!a.isEmpty() && a.getFirst() instanceof Map<?, ?> other) {
                    in.charge(m.size() + (long) other.size(), line);
                    other.forEach((x, y) -> m.put(Values.key(x), y));
                }
                in.charge(m.size() + (long) k.size(), line);
                m.putAll(k);
                yield null;
            }
            case "setdefault" -> {
                if (!m.containsKey(key)) {
                    in.charge(m.size() + 1L, line);
                    m.put(key, a.size() > 1 ? a.get(1) : null);
                }
                yield m.get(key);
            }
            case "pop" -> {
                if (m.containsKey(key)) {
                    yield m.remove(key);
                }
                if (a.size() > 1) {
                    yield a.get(1);
                }
                throw JinjaException.python("KeyError: " + Values.repr(key));
            }
            case "clear" -> {
                m.clear();
                yield null;
            }
            default -> { // get
                Object v = m.get(key);
                yield v != null || m.containsKey(key) ? v : a.size() > 1 ? a.get(1) : null;
            }
        };
    }

    @SuppressWarnings("unchecked")
    private static Object list(Interpreter in, List<?> items, String name, List<Object> a, int line) {
        List<Object> l = (List<Object>) items;
        Object x = a.isEmpty() ? null : a.getFirst();
        switch (name) {
            case "count" -> {
                return l.stream().filter(y -> Values.eq(x, y)).count();
            }
            case "append" -> {
                in.charge(l.size() + 1L, line);
                l.add(x);
                return null;
            }
            case "extend" -> {
                List<?> more = Values.iterate(x);
                in.charge(l.size() + (long) more.size(), line);
                l.addAll(more);
                return null;
            }
            case "insert" -> {
                long i = Filters.number(x);
                int n = l.size();
                long at = i < 0 ? Math.max(0, i + n) : Math.min(i, n);
                in.charge(n + 1L, line);
                l.add((int) at, a.size() > 1 ? a.get(1) : null);
                return null;
            }
            case "pop" -> {
                if (l.isEmpty()) {
                    throw JinjaException.python("pop from empty list");
                }
                long i = a.isEmpty() ? -1 : Filters.number(x);
                long at = i < 0 ? i + l.size() : i;
                if (at < 0 || at >= l.size()) {
                    throw JinjaException.python("pop index out of range");
                }
                return l.remove((int) at);
            }
            case "remove" -> {
                for (int i = 0; i < l.size(); i++) {
                    if (Values.eq(l.get(i), x)) {
                        l.remove(i);
                        return null;
                    }
                }
                throw JinjaException.python("list.remove(x): x not in list");
            }
            case "clear" -> {
                l.clear();
                return null;
            }
            case "reverse" -> {
                Collections.reverse(l);
                return null;
            }
            case "copy" -> {
                return new ArrayList<>(l);
            }
            default -> { // index
                for (int i = 0; i < l.size(); i++) {
                    if (Values.eq(l.get(i), x)) {
                        return (long) i;
                    }
                }
                throw JinjaException.python(Values.repr(x) + " is not in list");
            }
        }
    }
}
