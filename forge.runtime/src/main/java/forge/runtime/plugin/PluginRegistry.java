package forge.runtime.plugin;

import forge.api.backend.BackendProvider;
import forge.api.template.ChatTemplateProvider;
import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every plugin ForgeLM found: the built-in ones of the boot layer, and those of each jar or
 * sub-folder of the plugins folders, each loaded into a child {@link ModuleLayer} of its own.
 *
 * <p>A source that cannot be loaded (a corrupt jar, a missing dependency, a provider whose
 * constructor throws) is logged, recorded with its reason in {@link #sources()}, and skipped; the
 * rest load as usual.
 */
public final class PluginRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(PluginRegistry.class);
    private static final String BOOT = "boot";

    private final List<Discovered<BackendProvider>> backends = new ArrayList<>();
    private final List<Discovered<ChatTemplateProvider>> templates = new ArrayList<>();
    private final List<PluginSource> sources = new ArrayList<>();
    private final List<ModuleLayer> layers = new ArrayList<>();

    private PluginRegistry() {
    }

    /**
     * Discovers the boot layer's providers, then those of every plugins folder in order. Folders
     * that do not exist are ignored.
     */
    public static PluginRegistry discover(List<Path> pluginFolders) {
        PluginRegistry registry = new PluginRegistry();
        registry.scan(ModuleLayer.boot(), BOOT, List.of());
        for (Path folder : pluginFolders.stream().distinct().toList()) {
            registry.scanFolder(folder);
        }
        return registry;
    }

    public List<Discovered<BackendProvider>> backends() {
        return List.copyOf(backends);
    }

    public List<Discovered<ChatTemplateProvider>> templates() {
        return List.copyOf(templates);
    }

    /** Every source looked at, in order, with what it held or why it failed. */
    public List<PluginSource> sources() {
        return List.copyOf(sources);
    }

    private void scanFolder(Path folder) {
        if (!Files.isDirectory(folder)) {
            LOG.debug("plugins folder {} does not exist", folder);
            return;
        }
        List<Path> entries;
        try (Stream<Path> list = Files.list(folder)) {
            entries = list.filter(p -> Files.isDirectory(p) || p.getFileName().toString().endsWith(".jar"))
                    .sorted(Comparator.comparing(Path::toString)).toList();
        } catch (IOException e) {
            LOG.warn("cannot list plugins folder {}: {}", folder, e.toString());
            sources.add(PluginSource.failed(folder, "cannot list folder: " + e.getMessage()));
            return;
        }
        for (Path entry : entries) {
            loadPlugin(entry);
        }
    }

    /** One jar, or one folder of jars (a plugin and its own dependencies), into one child layer. */
    private void loadPlugin(Path entry) {
        String location = entry.toAbsolutePath().toString();
        try {
            ModuleFinder finder = ModuleFinder.of(entry);
            Set<ModuleReference> found = finder.findAll();
            List<String> roots = found.stream().map(r -> r.descriptor().name())
                    .filter(name -> ModuleLayer.boot().findModule(name).isEmpty())
                    .sorted().toList();
            if (roots.isEmpty()) {
                throw new IllegalStateException(found.isEmpty() ? "no module found" : "its modules are already built in: "
                        + found.stream().map(r -> r.descriptor().name()).sorted().collect(Collectors.joining(", ")));
            }
            Configuration config = ModuleLayer.boot().configuration().resolve(finder, ModuleFinder.of(), roots);
            ModuleLayer.Controller controller = ModuleLayer.defineModulesWithOneLoader(
                    config, List.of(ModuleLayer.boot()), ClassLoader.getSystemClassLoader());
            ModuleLayer layer = controller.layer();
            // Backend plugins bind native libraries with FFM: grant them what the boot layer's get.
            for (Module module : layer.modules()) {
                enableNativeAccess(controller, module);
            }
            layers.add(layer);
            scan(layer, location, roots);
        } catch (RuntimeException | LinkageError e) {
            // FindException (corrupt jar, bad descriptor), ResolutionException (missing dependency),
            // LayerInstantiationException (split packages): the plugin is skipped, the server goes on.
            String reason = e.getClass().getSimpleName() + ": " + e.getMessage();
            LOG.warn("skipping plugin {}: {}", location, reason);
            sources.add(PluginSource.failed(entry, reason));
        }
    }

    private static void enableNativeAccess(ModuleLayer.Controller controller, Module module) {
        try {
            controller.enableNativeAccess(module);
        } catch (IllegalCallerException e) {
            LOG.debug("cannot grant native access to {} (forge.runtime has none itself): {}", module.getName(), e.getMessage());
        }
    }

    private void scan(ModuleLayer layer, String location, List<String> modules) {
        List<String> lines = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        java.util.Set<String> providerModules = new java.util.TreeSet<>();
        for (Discovered<BackendProvider> d : load(layer, BackendProvider.class, location, failures)) {
            backends.add(d);
            providerModules.add(d.module());
            lines.add("backend " + d.provider().name() + " (" + d.module() + ")");
        }
        for (Discovered<ChatTemplateProvider> d : load(layer, ChatTemplateProvider.class, location, failures)) {
            templates.add(d);
            providerModules.add(d.module());
            lines.add("template " + d.provider().family() + " " + d.provider().variants().stream()
                    .map(v -> v.name()).toList() + " (" + d.module() + ")");
        }
        // The boot layer holds the JDK and libraries too: list only the modules that provide plugins.
        List<String> moduleNames = layer == ModuleLayer.boot() ? List.copyOf(providerModules) : modules;
        sources.add(new PluginSource(location, moduleNames, lines,
                failures.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", failures))));
    }

    /**
     * The providers of {@code service} defined in {@code layer} itself: {@link ServiceLoader#load(ModuleLayer, Class)}
     * also returns the parents' providers, which were listed with their own layer.
     */
    private static <S> List<Discovered<S>> load(ModuleLayer layer, Class<S> service, String location, List<String> failures) {
        List<Discovered<S>> result = new ArrayList<>();
        ServiceLoader<S> loader = ServiceLoader.load(layer, service);
        var it = loader.stream().iterator();
        while (true) {
            ServiceLoader.Provider<S> provider;
            try {
                if (!it.hasNext()) {
                    break;
                }
                provider = it.next();
            } catch (ServiceConfigurationError e) {
                LOG.warn("skipping a {} in {}: {}", service.getSimpleName(), location, e.getMessage());
                failures.add(e.getMessage());
                continue;
            }
            Module module = provider.type().getModule();
            if (module.getLayer() != layer) {
                continue;
            }
            try {
                result.add(new Discovered<>(provider.get(), module.getName(), location));
            } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
                String reason = provider.type().getName() + " failed to load: " + rootMessage(e);
                LOG.warn("skipping {} in {}: {}", service.getSimpleName(), location, reason);
                failures.add(reason);
            }
        }
        return result;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + t + ")";
    }
}
