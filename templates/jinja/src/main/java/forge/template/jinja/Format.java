package forge.template.jinja;

import forge.template.jinja.Types.Tuple;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Python's two ways to format text that chat templates use: {@code str.format} ({@code
 * '<x{}>'.format(t)}) and printf-style {@code %} ({@code "%s" % x}, the {@code format} filter),
 * each with Python's errors.
 */
final class Format {

    private Format() {}

    /**
     * {@code str.format(*args, **kwargs)}: {@code {}}, {@code {0}} and {@code {name}} fields,
     * {@code !r}/{@code !s}, {@code {{}}/{@code }}} for braces, and the common format specs
     * (fill, alignment, width, precision; types {@code s}, {@code d}, {@code f}).
     */
    static String format(String template, List<Object> positional, Map<String, Object> named) {
        StringBuilder sb = new StringBuilder();
        int auto = 0;
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if (c == '}') {
                if (i + 1 < template.length() && template.charAt(i + 1) == '}') {
                    i++;
                }
                sb.append('}');
                continue;
            }
            if (c != '{') {
                sb.append(c);
                continue;
            }
            if (i + 1 < template.length() && template.charAt(i + 1) == '{') {
                sb.append('{');
                i++;
                continue;
            }
            int end = template.indexOf('}', i);
            if (end < 0) {
                throw JinjaException.python("Single '{' encountered in format string");
            }
            String field = template.substring(i + 1, end);
            i = end;
            String spec = "";
            int colon = field.indexOf(':');
            if (colon >= 0) {
                spec = field.substring(colon + 1);
                field = field.substring(0, colon);
            }
            char conversion = 0;
            int bang = field.indexOf('!');
            if (bang >= 0) {
                conversion = field.length() > bang + 1 ? field.charAt(bang + 1) : 's';
                field = field.substring(0, bang);
            }
            Object value;
            if (field.isEmpty()) {
                value = argument(positional, auto++);
            } else if (field.chars().allMatch(Character::isDigit)) {
                value = argument(positional, Integer.parseInt(field));
            } else if (named.containsKey(field)) {
                value = named.get(field);
            } else {
                throw JinjaException.python("KeyError: '" + field + "'");
            }
            if (conversion == 'r') {
                value = Values.repr(value);
            }
            sb.append(formatSpec(value, spec));
        }
        return sb.toString();
    }

    private static Object argument(List<Object> positional, int index) {
        if (index >= positional.size()) {
            throw JinjaException.python("Replacement index " + index + " out of range for positional args tuple");
        }
        return positional.get(index);
    }

    private static final Pattern SPEC =
            Pattern.compile("(?:(.)?([<>^=]))?([+\\- ])?(0)?(\\d+)?(?:\\.(\\d+))?([sdfeg%])?");

    private static String formatSpec(Object value, String spec) {
        if (spec.isEmpty()) {
            return Values.str(value);
        }
        Matcher m = SPEC.matcher(spec);
        if (!m.matches()) {
            throw JinjaException.python("Invalid format specifier '" + spec + "'");
        }
        String type = m.group(7);
        Integer precision = m.group(6) == null ? null : Integer.valueOf(m.group(6));
        String body;
        boolean numeric = Values.isNumber(value) && !"s".equals(type);
        if (type == null || type.equals("s")) {
            body = Values.str(value);
            if (precision != null && !numeric) {
                body = body.substring(0, Math.min(body.length(), precision));
            }
        } else if (type.equals("d")) {
            body = Values.str(value);
        } else {
            double d = ((Number) (value instanceof Boolean b ? (b ? 1 : 0) : value)).doubleValue();
            int p = precision == null ? 6 : precision;
            body = switch (type) {
                case "f" -> String.format(Locale.ROOT, "%." + p + "f", d);
                case "e" -> String.format(Locale.ROOT, "%." + p + "e", d);
                case "%" -> String.format(Locale.ROOT, "%." + p + "f", d * 100) + "%";
                default -> Values.str(value);
            };
        }
        if ("+".equals(m.group(3)) && numeric && !body.startsWith("-")) {
            body = "+" + body;
        }
        int width = m.group(5) == null ? 0 : Integer.parseInt(m.group(5));
        if (body.length() >= width) {
            return body;
        }
        String fill = m.group(1) != null ? m.group(1) : m.group(4) != null ? "0" : " ";
        String align = m.group(2) != null ? m.group(2) : m.group(4) != null ? "=" : numeric ? ">" : "<";
        int pad = width - body.length();
        return switch (align) {
            case ">" -> fill.repeat(pad) + body;
            case "^" -> fill.repeat(pad / 2) + body + fill.repeat(pad - pad / 2);
            case "=" ->
                body.startsWith("-") || body.startsWith("+")
                        ? body.charAt(0) + fill.repeat(pad) + body.substring(1)
                        : fill.repeat(pad) + body;
            default -> body + fill.repeat(pad);
        };
    }

    /**
     * {@code template % args}, Python's printf-style formatting: a tuple gives the positional
     * values, a dict the {@code %(name)s} ones, anything else is the one value. Conversions
     * {@code s r d i f F e E g G x X o c %} with flags, width and precision.
     */
    static String printf(String template, Object args) {
        List<?> values = args instanceof Tuple t ? t : Collections.singletonList(args);
        Map<?, ?> named = args instanceof Map<?, ?> m ? m : null;
        StringBuilder sb = new StringBuilder();
        int next = 0;
        Matcher m = PRINTF.matcher(template);
        int at = 0;
        while (m.find()) {
            sb.append(template, at, m.start());
            at = m.end();
            char conversion = m.group(6).charAt(0);
            if (conversion == '%') {
                sb.append('%');
                continue;
            }
            Object value;
            if (m.group(1) != null) {
                if (named == null) {
                    throw JinjaException.python("format requires a mapping");
                }
                value = named.get(m.group(1));
            } else {
                if (next >= values.size()) {
                    throw JinjaException.python("not enough arguments for format string");
                }
                value = values.get(next++);
            }
            sb.append(conversion(m.group(2), m.group(3), m.group(5), conversion, value));
        }
        if (named == null && next < values.size()) {
            throw JinjaException.python("not all arguments converted during string formatting");
        }
        return sb.append(template.substring(at)).toString();
    }

    private static final Pattern PRINTF =
            Pattern.compile("%(?:\\(([^)]*)\\))?([-+ 0#]*)(\\d+)?(\\.(\\d+))?([sradifFeEgGxXoc%])");

    /** C's {@code %g}: fixed or exponent notation by magnitude, trailing zeros dropped (Java's %g keeps them). */
    private static String general(double v, int precision, boolean upper) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            String s = Double.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
            return upper ? s.toUpperCase(Locale.ROOT) : s;
        }
        int p = Math.max(precision, 1);
        String e = String.format(Locale.ROOT, "%." + (p - 1) + "e", v);
        int exponent = Integer.parseInt(e.substring(e.indexOf('e') + 1));
        String out;
        if (exponent >= -4 && exponent < p) {
            out = trimZeros(String.format(Locale.ROOT, "%." + (p - 1 - exponent) + "f", v));
        } else {
            String mantissa = trimZeros(e.substring(0, e.indexOf('e')));
            out = mantissa + "e" + (exponent < 0 ? "-" : "+") + (Math.abs(exponent) < 10 ? "0" : "")
                    + Math.abs(exponent);
        }
        return upper ? out.toUpperCase(Locale.ROOT) : out;
    }

    private static String trimZeros(String s) {
        if (s.indexOf('.') < 0) {
            return s;
        }
        int end = s.length();
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        return s.charAt(end - 1) == '.' ? s.substring(0, end - 1) : s.substring(0, end);
    }

    private static String conversion(String flags, String width, String precision, char conversion, Object value) {
        boolean left = flags.contains("-");
        boolean zero = flags.contains("0") && !left;
        String sign = flags.contains("+") ? "+" : flags.contains(" ") ? " " : "";
        String body = switch (conversion) {
            case 's' -> Values.str(value);
            case 'r', 'a' -> Values.repr(value);
            case 'c' -> value instanceof Number n ? Character.toString(n.intValue()) : Values.str(value);
            default -> {
                if (!Values.isNumber(value)) {
                    throw JinjaException.python(
                            "%" + conversion + " format: a real number is required, not " + Values.typeName(value));
                }
                Number n = value instanceof Boolean b ? (Number) (b ? 1L : 0L) : (Number) value;
                String digits = switch (conversion) {
                    case 'd', 'i' ->
                        Long.toString(
                                n instanceof Double || n instanceof Float ? (long) n.doubleValue() : n.longValue());
                    case 'x' -> Long.toHexString(n.longValue());
                    case 'X' -> Long.toHexString(n.longValue()).toUpperCase(Locale.ROOT);
                    case 'o' -> Long.toOctalString(n.longValue());
                    case 'g', 'G' ->
                        general(
                                n.doubleValue(),
                                precision == null ? 6 : Integer.parseInt(precision),
                                conversion == 'G');
                    default ->
                        String.format(
                                Locale.ROOT,
                                "%." + (precision == null ? 6 : Integer.parseInt(precision))
                                        + (conversion == 'F' ? 'f' : conversion),
                                n.doubleValue());
                };
                yield !digits.startsWith("-") ? sign + digits : digits;
            }
        };
        if (precision != null && (conversion == 's' || conversion == 'r')) {
            body = body.substring(0, Math.min(body.length(), Integer.parseInt(precision)));
        }
        int w = width == null ? 0 : Integer.parseInt(width);
        if (body.length() >= w) {
            return body;
        }
        if (left) {
            return body + " ".repeat(w - body.length());
        }
        if (zero && "sr".indexOf(conversion) < 0) {
            int signLength = body.startsWith("-") || body.startsWith("+") || body.startsWith(" ") ? 1 : 0;
            return body.substring(0, signLength) + "0".repeat(w - body.length()) + body.substring(signLength);
        }
        return " ".repeat(w - body.length()) + body;
    }
}
