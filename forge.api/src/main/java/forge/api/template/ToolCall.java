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
}
