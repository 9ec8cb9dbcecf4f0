package forge.api.sampler;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A stage a {@link SamplerProvider} contributes: the name a request's {@code samplers} gives it,
 * what it does, and its parameters.
 *
 * @param name        {@code [a-z][a-z0-9_]*}, at most 64 characters; not a built-in stage's name or alias
 * @param description one line for {@code forge plugins} and {@code /props}
 * @param parameters  the request body fields it reads, each named {@code <name>_...}
 */
public record StageInfo(String name, String description, List<StageParameter> parameters) {

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    public StageInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        parameters = List.copyOf(parameters);
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "stage name '" + name + "' is not [a-z][a-z0-9_]* (at most 64 characters)");
        }
        if (BuiltinStage.byName(name).isPresent()) {
            throw new IllegalArgumentException("stage name '" + name + "' is a built-in stage's");
        }
        Set<String> seen = new HashSet<>();
        for (StageParameter p : parameters) {
            if (!p.name().startsWith(name + "_") || p.name().length() == name.length() + 1) {
                throw new IllegalArgumentException(
                        "parameter '" + p.name() + "' of stage '" + name + "' must be named " + name + "_<something>");
            }
            if (!seen.add(p.name())) {
                throw new IllegalArgumentException("stage '" + name + "' declares parameter '" + p.name() + "' twice");
            }
        }
    }

    /** The arguments when the request sets none of the parameters. */
    public StageArguments defaults() {
        Map<String, Object> values = new LinkedHashMap<>();
        for (StageParameter p : parameters) {
            values.put(p.name(), p.fallback());
        }
        return new StageArguments(values);
    }
}
