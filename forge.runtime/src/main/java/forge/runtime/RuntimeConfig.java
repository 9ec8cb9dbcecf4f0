package forge.runtime;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * How to assemble a {@link ForgeRuntime}.
 *
 * @param home          the ForgeLM home (the image root)
 * @param pluginFolders folders whose jars and sub-folders are plugins, in order
 * @param backend       the backend to use by name; empty to choose the best usable one
 * @param settings      backend settings, such as {@code llama.home}
 */
public record RuntimeConfig(Path home, List<Path> pluginFolders, String backend, Map<String, String> settings) {
    public RuntimeConfig {
        Objects.requireNonNull(home);
        pluginFolders = List.copyOf(pluginFolders);
        Objects.requireNonNull(backend);
        settings = Map.copyOf(settings);
    }

    /** This configuration with {@code more} settings on top of its own (command-line flags over {@code -Dforge.*}). */
    public RuntimeConfig withSettings(Map<String, String> more) {
        Map<String, String> all = new TreeMap<>(settings);
        all.putAll(more);
        return new RuntimeConfig(home, pluginFolders, backend, all);
    }

    /**
     * The ForgeLM home: {@code forge.home} if set, else the parent of the running Java's home when
     * it is a ForgeLM image (it has {@code natives/}), else the working folder.
     */
    public static Path defaultHome() {
        String configured = System.getProperty("forge.home");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured).toAbsolutePath();
        }
        Path javaHome = Path.of(System.getProperty("java.home")).toAbsolutePath();
        if (Files.isDirectory(javaHome.resolve("natives"))) {
            return javaHome;
        }
        return Path.of("").toAbsolutePath();
    }

    /** Settings from {@code forge.*} system properties, with the prefix dropped ({@code forge.llama.home} → {@code llama.home}). */
    public static Map<String, String> settingsFromSystemProperties() {
        Map<String, String> settings = new TreeMap<>();
        for (String key : System.getProperties().stringPropertyNames()) {
            if (key.startsWith("forge.")) {
                settings.put(key.substring("forge.".length()), System.getProperty(key));
            }
        }
        return settings;
    }
}
