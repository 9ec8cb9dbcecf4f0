package forge.template.generic.jinja;

import com.hubspot.jinjava.el.ext.NamedParameter;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.objects.Namespace;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.Map;

/**
 * The globals transformers gives every chat template ({@code raise_exception},
 * {@code strftime_now}) and Jinja2's {@code namespace}, as static methods that Jinjava calls by
 * reflection (hence public, in a package opened to Jinjava only).
 */
public final class JinjaFunctions {

    /** Where {@code raise_exception} leaves its message: a binding of each render. */
    static final String RAISED = "__forge_raised";

    /** The render's clock reading for {@code strftime_now}: a binding of each render. */
    static final String NOW = "__forge_now";

    private JinjaFunctions() {
    }

    /**
     * A global function seen as a variable ({@code strftime_now is defined}): Jinjava keeps
     * functions apart from variables, Jinja2 does not. Calls still go to the function.
     */
    record Global(String name) {
        @Override
        public String toString() {
            return "<function " + name + ">";
        }
    }

    /**
     * {@code raise_exception(message)}. Jinjava turns an exception thrown from a function into a
     * render error and carries on, so the message is also recorded in the render's bindings,
     * where {@link JinjaTemplate} finds it and throws it as the template's reason.
     */
    @SuppressWarnings("unchecked")
    public static Object raiseException(Object message) {
        String text = String.valueOf(message);
        JinjavaInterpreter interpreter = JinjavaInterpreter.getCurrent();
        if (interpreter != null && interpreter.getContext().get(RAISED) instanceof java.util.List<?> raised) {
            if (raised.isEmpty()) {
                ((java.util.List<Object>) raised).add(text);
            }
        }
        throw new IllegalStateException(text);
    }

    /** {@code strftime_now(format)}: the local time in the C locale, with Python's common directives. */
    public static String strftimeNow(String format) {
        JinjavaInterpreter interpreter = JinjavaInterpreter.getCurrent();
        Object now = interpreter == null ? null : interpreter.getContext().get(NOW);
        return strftime(now instanceof LocalDateTime t ? t : LocalDateTime.now(), format);
    }

    // The C locale's names, as Python's strftime writes them. Java's Locale.ROOT has no full month
    // names ("Jan" for %B), and a JDK's CLDR data is not the C library's.
    private static final String[] MONTHS = {"January", "February", "March", "April", "May", "June", "July", "August",
        "September", "October", "November", "December"};
    private static final String[] DAYS = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

    static String strftime(LocalDateTime t, String format) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < format.length(); i++) {
            char c = format.charAt(i);
            if (c != '%' || i + 1 >= format.length()) {
                sb.append(c);
                continue;
            }
            char d = format.charAt(++i);
            switch (d) {
                case 'd' -> sb.append(String.format("%02d", t.getDayOfMonth()));
                case 'm' -> sb.append(String.format("%02d", t.getMonthValue()));
                case 'Y' -> sb.append(t.getYear());
                case 'y' -> sb.append(String.format("%02d", t.getYear() % 100));
                case 'H' -> sb.append(String.format("%02d", t.getHour()));
                case 'M' -> sb.append(String.format("%02d", t.getMinute()));
                case 'S' -> sb.append(String.format("%02d", t.getSecond()));
                case 'b' -> sb.append(MONTHS[t.getMonthValue() - 1], 0, 3);
                case 'B' -> sb.append(MONTHS[t.getMonthValue() - 1]);
                case 'a' -> sb.append(DAYS[t.getDayOfWeek().ordinal()], 0, 3);
                case 'A' -> sb.append(DAYS[t.getDayOfWeek().ordinal()]);
                case 'j' -> sb.append(String.format("%03d", t.getDayOfYear()));
                case '%' -> sb.append('%');
                default -> sb.append('%').append(d);
            }
        }
        return sb.toString();
    }

    /**
     * {@code namespace(...)} as Jinja2 has it: a mutable mapping from a mapping and keyword
     * arguments, {@code none} values kept (Jinjava's own drops them, so a later
     * {@code ns.x is none} test saw an undefined name).
     */
    @SuppressWarnings("unchecked")
    public static Namespace namespace(Object... parameters) {
        Map<String, Object> values = new HashMap<>();
        for (Object p : parameters) {
            if (p instanceof Map<?, ?> m) {
                values.putAll((Map<String, Object>) m);
            } else if (p instanceof NamedParameter np) {
                values.put(np.getName(), np.getValue());
            }
        }
        return new Namespace(values);
    }
}
