package forge.runtime.plugin;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Loads plugins folders as the server does and prints what it found: for plugin authors (and
 * their tests) to check a jar before they ship it, without the server.
 *
 * {@snippet lang=sh :
 * java -p forge-api.jar:forge-runtime.jar:forge-runtime-gguf.jar:slf4j-api.jar \
 *      -m forge.runtime/forge.runtime.plugin.PluginCheck my-plugins/
 * }
 *
 * Exits 1 when a source in those folders failed (or, with {@code --strict}, has a warning), else 0.
 */
public final class PluginCheck {

    private PluginCheck() {
    }

    public static void main(String[] args) {
        boolean strict = Arrays.asList(args).contains("--strict");
        List<Path> folders = Arrays.stream(args).filter(a -> !a.equals("--strict")).map(Path::of).toList();
        PluginRegistry registry = PluginRegistry.discover(folders);
        boolean bad = false;
        for (PluginSource s : registry.sources()) {
            if (s.location().equals("boot")) {
                continue;
            }
            System.out.println((s.ok() ? "ok " : "FAILED ") + s.location() + " " + s.modules());
            s.providers().forEach(p -> System.out.println("  " + p));
            s.failure().ifPresent(f -> System.out.println("  reason: " + f));
            s.warnings().forEach(w -> System.out.println("  warning: " + w));
            bad |= !s.ok() || (strict && !s.warnings().isEmpty());
        }
        for (Discovered<?> d : registry.templates()) {
            if (!d.location().equals("boot")) {
                d.names().forEach(n -> System.out.println("template " + n + " (" + d.module() + ")"));
            }
        }
        for (SamplerStages.Stage st : registry.samplerStages().all()) {
            System.out.println("stage " + st.info().name() + " (" + st.module() + ") " + st.info().parameters().stream()
                    .map(p -> p.name() + "=" + p.fallback()).toList());
        }
        System.exit(bad ? 1 : 0);
    }
}
