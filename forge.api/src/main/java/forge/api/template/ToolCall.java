package forge.api.template;

import java.util.Objects;

/**
 * A tool call made by the assistant.
 *
 * @param id        the call's id, which the tool's answer refers to
 * @param name      the function's name
 * @param arguments the arguments as a JSON object's text
 */
public record ToolCall(String id, String name, String arguments) {
    public ToolCall {
        Objects.requireNonNull(id);
        Objects.requireNonNull(name);
        Objects.requireNonNull(arguments);
    }

    /**
     * The arguments as a JSON tree (see {@link PythonJson}), as templates print them with
     * {@code tojson}.
     *
     * @throws forge.api.TemplateException when the arguments are not JSON
     */
    public Object argumentsTree() {
        try {
            return PythonJson.parse(arguments.isBlank() ? "{}" : arguments);
        } catch (IllegalArgumentException e) {
            throw new forge.api.TemplateException("the arguments of tool call '" + name + "' are not JSON: " + e.getMessage(), e);
        }
    }
}
