package forge.api.sampler;

import java.util.Map;
import java.util.Objects;

/**
 * A plugin stage's parameters as one request set them, each already checked against its
 * {@link StageParameter}: {@code Long} for an {@link StageParameter.Int}, {@code Double} for a
 * {@link StageParameter.Num}, {@code Boolean}, {@code String}. Parameters the request did not set
 * hold their defaults.
 *
 * @param values parameter name to value
 */
public record StageArguments(Map<String, Object> values) {

    public StageArguments {
        values = Map.copyOf(values);
    }

    /** An integer parameter's value. */
    public long integer(String name) {
        return ((Number) get(name, Long.class)).longValue();
    }

    /** A number parameter's value. */
    public double number(String name) {
        return ((Number) get(name, Double.class)).doubleValue();
    }

    /** A boolean parameter's value. */
    public boolean bool(String name) {
        return (Boolean) get(name, Boolean.class);
    }

    /** A string parameter's value. */
    public String text(String name) {
        return (String) get(name, String.class);
    }

    private Object get(String name, Class<?> type) {
        Object v = values.get(Objects.requireNonNull(name));
        if (v == null) {
            throw new IllegalArgumentException("no parameter '" + name + "'; there are " + values.keySet());
        }
        if (!type.isInstance(v)) {
            throw new IllegalArgumentException("parameter '" + name + "' is a "
                    + v.getClass().getSimpleName() + ", not a " + type.getSimpleName());
        }
        return v;
    }
}
