package forge.template.gemma;

import forge.lib.text.PythonJson;
import forge.lib.text.PythonText;
import forge.lib.text.PythonValues;
import forge.template.toolkit.calls.Gemma4ToolCalls;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Gemma 4's notation for tools and arguments, as the official template's macros write it:
 * {@code format_function_declaration}, {@code format_parameters} and {@code format_argument}.
 * Strings are quoted with {@code <|"|>}, maps are walked in {@code dictsort} order (keys compared
 * case-insensitively), other scalars print as Python's {@code str} ({@code None}, {@code 2.0}; see
 * {@link PythonValues}).
 */
final class Gemma4Notation {

    private static final String Q = Gemma4ToolCalls.Q;
    private static final Set<String> STANDARD_KEYS =
            Set.of("description", "type", "properties", "required", "nullable");

    private Gemma4Notation() {}

    /** {@code format_function_declaration(tool) | trim} for an OpenAI function tool. */
    static String declaration(String name, String description, Map<String, Object> params) {
        StringBuilder sb = new StringBuilder("declaration:")
                .append(name)
                .append("{description:")
                .append(Q)
                .append(description)
                .append(Q);
        if (PythonValues.truthy(params)) {
            sb.append(",parameters:{");
            if (PythonValues.truthy(params.get("properties"))) {
                sb.append("properties:{")
                        .append(parameters(params.get("properties")))
                        .append("},");
            }
            if (PythonValues.truthy(params.get("required"))) {
                sb.append("required:[");
                appendQuotedList(sb, params.get("required"));
                sb.append("],");
            }
            if (PythonValues.truthy(params.get("type"))) {
                // The template closes "parameters:{" only here: a schema without a type leaves it open.
                sb.append("type:")
                        .append(Q)
                        .append(upper(params.get("type")))
                        .append(Q)
                        .append('}');
            }
        }
        sb.append('}');
        return PythonText.strip(sb.toString());
    }

    /** {@code format_parameters(properties, required)}: the template ignores {@code required} here. */
    static String parameters(Object properties) {
        StringBuilder sb = new StringBuilder();
        boolean foundFirst = false;
        for (Map.Entry<String, Object> e : dictsort(properties)) {
            String key = e.getKey();
            if (STANDARD_KEYS.contains(key)) {
                continue;
            }
            if (foundFirst) {
                sb.append(',');
            }
            foundFirst = true;
            Map<?, ?> value = e.getValue() instanceof Map<?, ?> m ? m : Map.of();
            Comma comma = new Comma(sb);
            sb.append(key).append(":{");
            if (PythonValues.truthy(value.get("description"))) {
                sb.append("description:")
                        .append(Q)
                        .append(PythonValues.str(value.get("description")))
                        .append(Q);
                comma.used = true;
            }
            String type = value.containsKey("type") ? upper(value.get("type")) : "";
            if (type.equals("STRING")) {
                if (PythonValues.truthy(value.get("enum"))) {
                    comma.next();
                    sb.append("enum:").append(argument(value.get("enum"), true));
                }
            } else if (type.equals("ARRAY")) {
                if (value.get("items") instanceof Map<?, ?> items && !items.isEmpty()) {
                    comma.next();
                    sb.append("items:{");
                    boolean itemsFirst = false;
                    for (Map.Entry<String, Object> item : dictsort(items)) {
                        Object v = item.getValue();
                        if (v == null || v == PythonJson.NULL) {
                            continue;
                        }
                        if (itemsFirst) {
                            sb.append(',');
                        }
                        itemsFirst = true;
                        switch (item.getKey()) {
                            case "properties" ->
                                sb.append("properties:{")
                                        .append(v instanceof Map<?, ?> ? parameters(v) : "")
                                        .append('}');
                            case "required" -> {
                                sb.append("required:[");
                                appendQuotedList(sb, v);
                                sb.append(']');
                            }
                            case "type" ->
                                sb.append("type:")
                                        .append(
                                                v instanceof String s
                                                        ? argument(upper(s), true)
                                                        : argument(
                                                                iterate(v).stream()
                                                                        .map(Gemma4Notation::upper)
                                                                        .toList(),
                                                                true));
                            default -> sb.append(item.getKey()).append(':').append(argument(v, true));
                        }
                    }
                    sb.append('}');
                }
            }
            if (PythonValues.truthy(value.get("nullable"))) {
                comma.next();
                sb.append("nullable:true");
            }
            if (type.equals("OBJECT")) {
                comma.next();
                // `value['properties'] is mapping`, else `value is mapping`: the value's own keys.
                Object nested = value.get("properties") instanceof Map<?, ?> p ? p : value;
                sb.append("properties:{").append(parameters(nested)).append('}');
                if (PythonValues.truthy(value.get("required"))) {
                    comma.next();
                    sb.append("required:[");
                    appendQuotedList(sb, value.get("required"));
                    sb.append(']');
                }
            }
            comma.next();
            sb.append("type:").append(Q).append(type).append(Q).append('}');
        }
        return sb.toString();
    }

    /** The template's {@code add_comma} dance: a comma before every part but the first. */
    private static final class Comma {
        private final StringBuilder sb;
        boolean used;

        Comma(StringBuilder sb) {
            this.sb = sb;
        }

        void next() {
            if (used) {
                sb.append(',');
            }
            used = true;
        }
    }

    private static void appendQuotedList(StringBuilder sb, Object list) {
        List<Object> items = iterate(list);
        for (int i = 0; i < items.size(); i++) {
            sb.append(i > 0 ? "," : "")
                    .append(Q)
                    .append(PythonValues.str(items.get(i)))
                    .append(Q);
        }
    }

    /** {@code format_argument(argument, escape_keys)}. */
    static String argument(Object a, boolean escapeKeys) {
        return switch (a) {
            case String s -> Q + s + Q;
            case Boolean b -> b ? "true" : "false";
            case Map<?, ?> m -> {
                StringBuilder sb = new StringBuilder("{");
                boolean first = true;
                for (Map.Entry<String, Object> e : dictsort(m)) {
                    sb.append(first ? "" : ",")
                            .append(escapeKeys ? Q + e.getKey() + Q : e.getKey())
                            .append(':')
                            .append(argument(e.getValue(), escapeKeys));
                    first = false;
                }
                yield sb.append('}').toString();
            }
            case List<?> l -> {
                StringBuilder sb = new StringBuilder("[");
                for (int i = 0; i < l.size(); i++) {
                    sb.append(i > 0 ? "," : "").append(argument(l.get(i), escapeKeys));
                }
                yield sb.append(']').toString();
            }
            case null -> "None";
            default -> PythonValues.str(a);
        };
    }

    /** A call's arguments as {@code key:value,...} between the braces of {@code call:name{...}}. */
    static String callArguments(Object arguments) {
        if (arguments instanceof Map<?, ?> m) {
            StringBuilder sb = new StringBuilder();
            boolean first = true;
            for (Map.Entry<String, Object> e : dictsort(m)) {
                sb.append(first ? "" : ",").append(e.getKey()).append(':').append(argument(e.getValue(), false));
                first = false;
            }
            return sb.toString();
        }
        return arguments instanceof String s ? s : "";
    }

    /** Jinja's {@code dictsort}: by key, case-insensitively, stable for keys equal but for case. */
    static List<Map.Entry<String, Object>> dictsort(Object map) {
        List<Map.Entry<String, Object>> entries = new ArrayList<>();
        if (map instanceof Map<?, ?> m) {
            m.forEach((k, v) -> entries.add(Map.entry(String.valueOf(k), v == null ? PythonJson.NULL : v)));
        }
        entries.sort(Comparator.comparing(e -> e.getKey().toLowerCase(Locale.ROOT)));
        return entries;
    }

    /** What {@code for x in value} visits: a list's items, a map's keys, a string's characters. */
    private static List<Object> iterate(Object v) {
        return switch (v) {
            case List<?> l -> new ArrayList<>(l);
            case Map<?, ?> m -> new ArrayList<>(m.keySet());
            case String s ->
                new ArrayList<>(s.codePoints().mapToObj(Character::toString).toList());
            case null, default -> List.of();
        };
    }

    /** Jinja's {@code upper} filter: Python's {@code str(value).upper()}. */
    static String upper(Object v) {
        return PythonValues.str(v).toUpperCase(Locale.ROOT);
    }
}
