package forge.api.backend;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * What the host tells a backend provider: where ForgeLM is installed and the settings the user
 * gave. A record, so plugins use it but cannot implement it.
 *
 * @param home     the ForgeLM home: the jlink image's root, or the build's working folder
 * @param settings backend settings by key (from {@code -Dforge.*} properties and the command
 *                 line), such as {@code llama.home}, the folder that holds the llama.cpp libraries
 */
public record BackendContext(Path home, Map<String, String> settings) {
    public BackendContext {
        java.util.Objects.requireNonNull(home, "home");
        settings = Map.copyOf(settings);
    }

    /** The setting {@code key}, when given. */
    public Optional<String> setting(String key) {
        return Optional.ofNullable(settings.get(key));
    }
}
