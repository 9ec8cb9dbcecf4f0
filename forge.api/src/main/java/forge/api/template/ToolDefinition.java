package forge.api.template;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A function the model may call, as the client declared it.
 *
 * @param name        the function's name
 * @param description what it does; empty when not given
 * @param parameters  its JSON Schema as a JSON tree (maps, lists, strings, numbers, booleans), in
 *                    the client's key order
 */
public record ToolDefinition(String name, String description, Map<String, Object> parameters) {
    public ToolDefinition {
        Objects.requireNonNull(name);
        Objects.requireNonNull(description);
        parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
    }

    /**
     * The tool as OpenAI clients send it and official templates print it with {@code tojson}:
     * {@code {"type": "function", "function": {"name", "description" (when given), "parameters"}}}.
     */
    public Map<String, Object> openAiTree() {
        Map<String, Object> function = new LinkedHashMap<>();
        function.put("name", name);
        if (!description.isEmpty()) {
            function.put("description", description);
        }
        function.put("parameters", parameters);
        Map<String, Object> tool = new LinkedHashMap<>();
        tool.put("type", "function");
        tool.put("function", function);
        return tool;
    }
}
