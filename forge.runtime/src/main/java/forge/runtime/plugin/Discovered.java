package forge.runtime.plugin;

import java.util.List;
import java.util.Objects;

/**
 * A provider instance and where it was found.
 *
 * @param provider the provider, instantiated
 * @param module   its module's name
 * @param location {@code boot} or the plugin jar or folder it came from
 * @param version  its module's version ({@code --module-version}), or empty when it has none
 * @param names    what it contributes that no other provider won: its template variants or sampler
 *                 stages (checked when it was discovered); its name for a backend
 */
public record Discovered<S>(S provider, String module, String location, String version, List<String> names) {
    public Discovered {
        Objects.requireNonNull(provider);
        Objects.requireNonNull(module);
        Objects.requireNonNull(location);
        Objects.requireNonNull(version);
        names = List.copyOf(names);
    }

    public Discovered(S provider, String module, String location) {
        this(provider, module, location, "", List.of());
    }
}
