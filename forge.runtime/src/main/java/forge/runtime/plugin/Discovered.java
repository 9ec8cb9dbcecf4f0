package forge.runtime.plugin;

import java.util.Objects;

/**
 * A provider instance and where it was found.
 *
 * @param provider the provider, instantiated
 * @param module   its module's name
 * @param location {@code boot} or the plugin jar or folder it came from
 */
public record Discovered<S>(S provider, String module, String location) {
    public Discovered {
        Objects.requireNonNull(provider);
        Objects.requireNonNull(module);
        Objects.requireNonNull(location);
    }
}
