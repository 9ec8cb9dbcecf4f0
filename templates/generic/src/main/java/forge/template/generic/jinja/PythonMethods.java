package forge.template.generic.jinja;

import com.hubspot.jinjava.objects.SafeString;
import forge.template.toolkit.PythonText;
import java.beans.FeatureDescriptor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * Python's {@code str}, {@code dict} and {@code list} methods as chat templates call them
 * ({@code content.split('</think>')}, {@code m.content.startswith('<tool_response>')},
 * {@code kwargs.items()}, {@code ns.parts.append(x)}, {@code '<x{}>'.format(t)}), and string
 * subscripts ({@code s[0]}). Jinja2 evaluates such calls on the Python
 * objects themselves; Jinjava looks for Java methods, finds no {@code startswith} on
 * {@link String} and prints nothing. This resolver answers those calls first and leaves every
 * other one to Jinjava's own resolvers.
 */
final class PythonMethods extends ELResolver {

    @Override
    public Object invoke(ELContext context, Object base, Object method, Class<?>[] paramTypes, Object[] params) {
        if (base == null || !(method instanceof String name)) {
            return null;
        }
        Object[] args = params == null ? new Object[0] : params;
        Object result;
        if (base instanceof String || base instanceof SafeString) {
            result = string(base.toString(), name, args);
        } else if (base instanceof Map<?, ?> map) {
            result = map(map, name, args);
        } else if (base instanceof List<?> list) {
            result = list(list, name, args);
        } else {
            return null;
        }
        if (result == NOT_MINE) {
            return null;
        }
        context.setPropertyResolved(true);
        return result;
    }

    private static final Object NOT_MINE = new Object();

    private static String str(Object o) {
        return o == null ? null : o.toString();
    }

    private static Object string(String s, String name, Object[] a) {
        return switch (name) {
            case "strip" -> a.length == 0 || a[0] == null ? PythonText.strip(s) : PythonText.strip(s, str(a[0]));
            case "lstrip" -> a.length == 0 || a[0] == null ? PythonText.lstrip(s) : PythonText.lstrip(s, str(a[0]));
            case "rstrip" -> a.length == 0 || a[0] == null ? PythonText.rstrip(s) : PythonText.rstrip(s, str(a[0]));
            case "startswith" -> affix(s, a[0], true);
            case "endswith" -> affix(s, a[0], false);
            case "split" -> PythonText.split(s, a.length > 0 ? str(a[0]) : null, a.length > 1 ? ((Number) a[1]).intValue() : -1);
            case "rsplit" -> PythonText.rsplit(s, a.length > 0 ? str(a[0]) : null, a.length > 1 ? ((Number) a[1]).intValue() : -1);
            case "replace" -> PythonText.replace(s, str(a[0]), str(a[1]), a.length > 2 ? ((Number) a[2]).intValue() : -1);
            case "upper" -> s.toUpperCase(Locale.ROOT);
            case "lower" -> s.toLowerCase(Locale.ROOT);
            case "title" -> PythonText.title(s);
            case "capitalize" -> PythonText.capitalize(s);
            case "find" -> (long) s.indexOf(str(a[0]));
            case "rfind" -> (long) s.lastIndexOf(str(a[0]));
            case "count" -> PythonText.count(s, str(a[0]));
            case "join" -> join(s, a[0]);
            case "isdigit" -> PythonText.isDigit(s);
            case "isspace" -> PythonText.isSpace(s);
            case "format" -> PythonFormat.format(s, a);
            default -> NOT_MINE;
        };
    }

    private static boolean affix(String s, Object arg, boolean prefix) {
        if (arg instanceof List<?> options) { // str.startswith accepts a tuple
            for (Object o : options) {
                if (affix(s, o, prefix)) {
                    return true;
                }
            }
            return false;
        }
        String x = str(arg);
        return prefix ? s.startsWith(x) : s.endsWith(x);
    }

    private static String join(String sep, Object items) {
        List<String> parts = new ArrayList<>();
        if (items instanceof Iterable<?> it) {
            for (Object o : it) {
                parts.add(str(o));
            }
        }
        return String.join(sep, parts);
    }

    private static Object map(Map<?, ?> map, String name, Object[] a) {
        return switch (name) {
            case "items" -> {
                List<Object> out = new ArrayList<>(map.size());
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    out.add(PyTuple.of(e.getKey(), e.getValue()));
                }
                yield out;
            }
            case "keys" -> new ArrayList<>(map.keySet());
            case "values" -> new ArrayList<>(map.values());
            case "get" -> map.containsKey(a[0]) ? map.get(a[0]) : (a.length > 1 ? a[1] : PyNone.NONE);
            default -> NOT_MINE;
        };
    }

    @SuppressWarnings("unchecked")
    private static Object list(List<?> list, String name, Object[] a) {
        return switch (name) {
            case "append" -> {
                ((List<Object>) list).add(a[0]);
                yield PyNone.NONE;
            }
            case "index" -> (long) list.indexOf(a[0]);
            default -> NOT_MINE;
        };
    }

    /**
     * The properties Jinjava's resolvers get wrong: a string's characters by index
     * ({@code s[0]}, {@code s[-1]}; Jinjava gave nothing), and nothing at all of {@code None}.
     */
    @Override
    public Object getValue(ELContext context, Object base, Object property) {
        if (base == PyNone.NONE) {
            context.setPropertyResolved(true);
            return null;
        }
        // Jinjava hands the subscript over as text: s[0] asks for property "0"
        if ((base instanceof String || base instanceof SafeString) && index(property) != null) {
            context.setPropertyResolved(true);
            String s = base.toString();
            int count = s.codePointCount(0, s.length());
            long n = index(property);
            long i = n < 0 ? n + count : n;
            if (i < 0 || i >= count) {
                return null; // Jinja2: an index out of range is Undefined
            }
            int at = s.offsetByCodePoints(0, (int) i);
            return s.substring(at, s.offsetByCodePoints(at, 1));
        }
        return null;
    }

    private static Long index(Object property) {
        if (property instanceof Long || property instanceof Integer) {
            return ((Number) property).longValue();
        }
        if (property instanceof String p && !p.isEmpty() && p.length() < 19
                && (Character.isDigit(p.charAt(0)) || p.charAt(0) == '-' && p.length() > 1)
                && p.chars().skip(1).allMatch(Character::isDigit)) {
            return Long.parseLong(p);
        }
        return null;
    }

    @Override
    public Class<?> getType(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public void setValue(ELContext context, Object base, Object property, Object value) {
    }

    @Override
    public boolean isReadOnly(ELContext context, Object base, Object property) {
        return true;
    }

    @Override
    public Iterator<FeatureDescriptor> getFeatureDescriptors(ELContext context, Object base) {
        return null;
    }

    @Override
    public Class<?> getCommonPropertyType(ELContext context, Object base) {
        return null;
    }
}
