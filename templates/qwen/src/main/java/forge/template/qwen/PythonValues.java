package forge.template.qwen;

import forge.api.template.PythonJson;
import java.util.List;
import java.util.Map;

/** Jinja's {@code |string} of JSON values as Python prints them: {@code True}, {@code None}, {@code ['a', 'b']}. */
final class PythonValues {

    private PythonValues() {
    }

    /** {@code str(value)}. */
    static String str(Object v) {
        return v instanceof String s ? s : repr(v);
    }

    /** {@code repr(value)}: strings in single quotes (Python's choice when the text has no single quote). */
    static String repr(Object v) {
        if (v instanceof String s) {
            if (s.contains("'") && !s.contains("\"")) {
                return "\"" + s.replace("\\", "\\\\") + "\"";
            }
            return "'" + s.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\t", "\\t") + "'";
        }
        if (v instanceof Boolean b) {
            return b ? "True" : "False";
        }
        if (v == PythonJson.NULL || v == null) {
            return "None";
        }
        if (v instanceof Map<?, ?> m) {
            StringBuilder sb = new StringBuilder("{");
            for (var e : m.entrySet()) {
                sb.append(sb.length() > 1 ? ", " : "").append(repr(e.getKey())).append(": ").append(repr(e.getValue()));
            }
            return sb.append('}').toString();
        }
        if (v instanceof List<?> l) {
            StringBuilder sb = new StringBuilder("[");
            for (Object o : l) {
                sb.append(sb.length() > 1 ? ", " : "").append(repr(o));
            }
            return sb.append(']').toString();
        }
        return PythonJson.dumps(v); // numbers: json.dumps spells them as repr does
    }

    /** The template's {@code args_value | tojson if mapping or list else args_value | string}. */
    static String argument(Object v) {
        return v instanceof Map<?, ?> || v instanceof List<?> ? PythonJson.dumps(v) : str(v);
    }
}
