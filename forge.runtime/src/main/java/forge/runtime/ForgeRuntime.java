package forge.runtime;

import forge.api.ForgeException;
import forge.api.backend.Availability;
import forge.api.backend.Backend;
import forge.api.backend.BackendContext;
import forge.api.backend.BackendProvider;
import forge.runtime.catalog.TemplateSelector;
import forge.runtime.plugin.Discovered;
import forge.runtime.plugin.PluginRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The assembled runtime: the plugins found, the chosen backend, the template selector.
 */
public final class ForgeRuntime implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ForgeRuntime.class);

    private final RuntimeConfig config;
    private final PluginRegistry plugins;
    private final List<BackendChoice> choices;
    private final Backend backend;
    private final TemplateSelector templates;

    private ForgeRuntime(RuntimeConfig config, PluginRegistry plugins, List<BackendChoice> choices, Backend backend) {
        this.config = config;
        this.plugins = plugins;
        this.choices = choices;
        this.backend = backend;
        this.templates = new TemplateSelector(plugins.templates());
    }

    /**
     * Discovers the plugins and probes every backend, without creating one: what {@code forge plugins} shows.
     */
    public static Inspection inspect(RuntimeConfig config) {
        PluginRegistry plugins = PluginRegistry.discover(config.pluginFolders());
        BackendContext context = new BackendContext(config.home(), config.settings());
        List<Probed> probed = new ArrayList<>();
        for (Discovered<BackendProvider> d : plugins.backends()) {
            Availability verdict;
            try {
                verdict = d.provider().probe(context);
            } catch (RuntimeException | LinkageError e) {
                verdict = Availability.unusable("probe failed: " + e);
            }
            LOG.info(
                    "backend {} ({}, priority {}): {} - {}",
                    d.provider().name(),
                    d.location(),
                    d.provider().priority(),
                    verdict.isUsable() ? "usable" : "unusable",
                    verdict.detail());
            probed.add(new Probed(d, verdict));
        }
        Optional<Probed> winner = probed.stream()
                .filter(p -> p.verdict().isUsable())
                .filter(p -> config.backend().isEmpty()
                        || p.discovered().provider().name().equals(config.backend()))
                .max(Comparator.comparingInt(p -> p.discovered().provider().priority()));
        List<BackendChoice> choices = probed.stream()
                .map(p -> new BackendChoice(
                        p.discovered().provider().name(),
                        p.discovered().module(),
                        p.discovered().location(),
                        p.discovered().provider().priority(),
                        p.verdict(),
                        winner.isPresent() && winner.get() == p))
                .toList();
        return new Inspection(plugins, choices, winner.map(p -> p.discovered().provider()));
    }

    /**
     * Discovers plugins and creates the chosen backend.
     *
     * @throws ForgeException when no backend is usable (or the named one is not), with every verdict
     */
    public static ForgeRuntime start(RuntimeConfig config) {
        Inspection inspection = inspect(config);
        BackendProvider provider = inspection
                .chosen()
                .orElseThrow(() -> new ForgeException(noBackend(config.backend(), inspection.backends())));
        LOG.info("using backend {}", provider.name());
        Backend backend = provider.create(new BackendContext(config.home(), config.settings()));
        return new ForgeRuntime(config, inspection.plugins(), inspection.backends(), backend);
    }

    /** Why no backend was chosen: the forced one unknown or unusable (and why), or none usable (each verdict). */
    static String noBackend(String forced, List<BackendChoice> candidates) {
        List<String> verdicts = candidates.stream()
                .map(c -> c.name() + ": " + c.verdict().detail())
                .toList();
        if (forced.isEmpty()) {
            return "no usable backend; verdicts: " + verdicts;
        }
        return candidates.stream()
                .filter(c -> c.name().equals(forced))
                .findFirst()
                .map(c ->
                        "--backend " + forced + " is not usable: " + c.verdict().detail())
                .orElseGet(() -> "--backend " + forced + ": no such backend; the backends found are "
                        + candidates.stream().map(BackendChoice::name).toList() + " (forge plugins lists them)");
    }

    public RuntimeConfig config() {
        return config;
    }

    public PluginRegistry plugins() {
        return plugins;
    }

    public List<BackendChoice> backends() {
        return choices;
    }

    public Backend backend() {
        return backend;
    }

    public TemplateSelector templates() {
        return templates;
    }

    @Override
    public void close() {
        backend.close();
    }

    /** What discovery and probing found. */
    public record Inspection(PluginRegistry plugins, List<BackendChoice> backends, Optional<BackendProvider> chosen) {}

    private record Probed(Discovered<BackendProvider> discovered, Availability verdict) {}
}
