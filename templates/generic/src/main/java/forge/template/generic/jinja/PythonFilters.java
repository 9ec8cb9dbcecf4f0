package forge.template.generic.jinja;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.filter.Filter;
import com.hubspot.jinjava.objects.SafeString;
import forge.api.template.PythonJson;
import forge.api.template.PythonText;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Filters whose Jinjava versions print other bytes than Jinja2 under transformers. */
final class PythonFilters {

    private PythonFilters() {
    }

    /**
     * {@code tojson} as transformers defines it: {@code json.dumps(x, ensure_ascii=False,
     * indent=indent)}, Python's spacing and float spelling ({@link PythonJson}). Jinjava's is
     * Jackson's compact form.
     */
    static final class ToJson implements Filter {
        @Override
        public String getName() {
            return "tojson";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
            return filter(var, interpreter, args, Map.of());
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            Object indent = kwargs.containsKey("indent") ? kwargs.get("indent") : (args.length > 0 ? args[0] : null);
            Object tree = tree(var);
            return indent instanceof Number n ? PythonJson.dumps(tree, n.intValue()) : PythonJson.dumps(tree);
        }
    }

    /** {@code trim} as Jinja2's: Python's {@code str.strip([chars])}, wider whitespace than Java's. */
    static final class Trim implements Filter {
        @Override
        public String getName() {
            return "trim";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
            String s = var == null ? "" : var.toString();
            return args.length > 0 && args[0] != null ? PythonText.strip(s, args[0]) : PythonText.strip(s);
        }
    }

    /** Jinjava's values as the JSON trees {@link PythonJson} writes. */
    static Object tree(Object v) {
        return switch (v) {
            case null -> null;
            case SafeString s -> s.toString();
            case String s -> s;
            case Boolean b -> b;
            case Integer i -> (long) i;
            case Number n -> n;
            case Map<?, ?> m -> {
                Map<String, Object> out = new LinkedHashMap<>();
                m.forEach((k, x) -> out.put(String.valueOf(k), tree(x)));
                yield out;
            }
            case Iterable<?> it -> {
                List<Object> out = new ArrayList<>();
                it.forEach(x -> out.add(tree(x)));
                yield out;
            }
            default -> v == PythonJson.NULL ? null : v.toString();
        };
    }
}
