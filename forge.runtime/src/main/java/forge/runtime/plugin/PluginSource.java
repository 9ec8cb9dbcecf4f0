package forge.runtime.plugin;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where plugins came from: the boot layer, or one jar or folder of a plugins folder, with what it
 * held or why it failed.
 *
 * @param location  {@code boot} or the jar's or folder's absolute path
 * @param modules   the module names found there
 * @param providers one line per provider found, such as {@code template generic (forge.template.generic)}
 * @param failure   why the source was skipped, or why some of its providers were; empty when all loaded
 * @param warnings  what it holds that another source also holds, and which one won
 */
public record PluginSource(
        String location,
        List<String> modules,
        List<String> providers,
        Optional<String> failure,
        List<String> warnings) {
    public PluginSource {
        Objects.requireNonNull(location);
        modules = List.copyOf(modules);
        providers = List.copyOf(providers);
        Objects.requireNonNull(failure);
        warnings = List.copyOf(warnings);
    }

    public PluginSource(String location, List<String> modules, List<String> providers, Optional<String> failure) {
        this(location, modules, providers, failure, List.of());
    }

    static PluginSource failed(Path path, String reason) {
        return new PluginSource(path.toAbsolutePath().toString(), List.of(), List.of(), Optional.of(reason));
    }

    /** True when nothing from this source failed. */
    public boolean ok() {
        return failure.isEmpty();
    }
}
