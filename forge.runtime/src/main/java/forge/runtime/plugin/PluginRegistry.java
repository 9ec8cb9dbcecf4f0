package forge.runtime.plugin;

import forge.api.TemplateException;
import forge.api.backend.BackendProvider;
import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.sampler.SamplerProvider;
import forge.api.sampler.SamplerStage;
import forge.api.sampler.StageInfo;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.Role;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every plugin ForgeLM found: the built-in ones of the boot layer, and those of each jar or
 * sub-folder of the plugins folders, each loaded into a child {@link ModuleLayer} of its own.
 *
 * <p>A source that cannot be loaded (a corrupt jar, a missing dependency, a provider whose
 * constructor throws) is logged, recorded with its reason (and that reason's cause, such as
 * {@code zip END header not found}) in {@link #sources()}, and skipped; the rest load as usual.
 *
 * <p>Each provider is checked once, here: a template provider's {@code family()}, {@code variants()},
 * {@code version()}, a {@code claim} on an empty model and, for a plugin's, a render of each
 * variant (the boot layer's are the image's own, rendered by its build's tests against the
 * official templates; rendering their ~70 variants took about 0.15 s of every
 * start, before the JIT); a sampler
 * provider's {@code stages()} and a {@code create} of each stage with its defaults. A provider
 * that throws in any of them (a {@link TemplateException} from a render aside: a template may
 * refuse a conversation) is reported failed and dropped, so that no later call of the same
 * methods ({@code /v1/templates}, {@code forge plugins}) meets it. What it contributes is kept as
 * {@link Discovered#names()}.
 *
 * <p>Two providers with the same template variant or sampler stage name: the one of the higher
 * module version ({@code --module-version}; a module without one is the lowest) wins, on a tie the
 * first found: the boot layer, then the plugins folders in the order given, each folder's entries
 * by name. The loser keeps its other names; both sources carry a warning that says who won, which
 * is logged and shown by {@code forge plugins}.
 */
public final class PluginRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(PluginRegistry.class);
    private static final String BOOT = "boot";
    /** What a template's smoke test renders and claims. */
    private static final ModelDescriptor PROBE_MODEL =
            new ModelDescriptor("plugin-check", List.of(), Path.of("plugin-check.gguf"), ModelMetadata.EMPTY);

    private static final ChatPrompt PROBE_PROMPT = ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "hello")));

    private final List<Discovered<BackendProvider>> backends = new ArrayList<>();
    private final List<Candidate<ChatTemplateProvider>> templateCandidates = new ArrayList<>();
    private final List<Candidate<SamplerProvider>> samplerCandidates = new ArrayList<>();
    private final List<Discovered<ChatTemplateProvider>> templates = new ArrayList<>();
    private final List<Discovered<SamplerProvider>> samplers = new ArrayList<>();
    private final List<Source> building = new ArrayList<>();
    private final List<PluginSource> sources = new ArrayList<>();
    private final List<ModuleLayer> layers = new ArrayList<>();
    private SamplerStages stages = SamplerStages.NONE;

    private int renderChecks;

    private PluginRegistry() {}

    /**
     * Discovers the boot layer's providers, then those of every plugins folder in order. Folders
     * that do not exist are ignored.
     */
    public static PluginRegistry discover(List<Path> pluginFolders) {
        PluginRegistry registry = new PluginRegistry();
        registry.scan(ModuleLayer.boot(), BOOT, List.of(), false);
        for (Path folder : pluginFolders.stream().distinct().toList()) {
            registry.scanFolder(folder);
        }
        registry.settle();
        return registry;
    }

    /** How many template variants discovery rendered to check them: the plugins folders' only. */
    public int renderChecks() {
        return renderChecks;
    }

    public List<Discovered<BackendProvider>> backends() {
        return List.copyOf(backends);
    }

    /** The template providers that contribute at least one variant; each variant is in exactly one's {@link Discovered#names()}. */
    public List<Discovered<ChatTemplateProvider>> templates() {
        return List.copyOf(templates);
    }

    /** The sampler providers that contribute at least one stage. */
    public List<Discovered<SamplerProvider>> samplers() {
        return List.copyOf(samplers);
    }

    /** The plugin sampler stages, by name. */
    public SamplerStages samplerStages() {
        return stages;
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
            entries = list.filter(p ->
                            Files.isDirectory(p) || p.getFileName().toString().endsWith(".jar"))
                    .sorted(Comparator.comparing(Path::toString))
                    .toList();
        } catch (IOException e) {
            LOG.warn("cannot list plugins folder {}: {}", folder, e.toString());
            building.add(Source.failed(folder, "cannot list folder: " + reason(e)));
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
            List<String> roots = found.stream()
                    .map(r -> r.descriptor().name())
                    .filter(name -> ModuleLayer.boot().findModule(name).isEmpty())
                    .sorted()
                    .toList();
            if (roots.isEmpty()) {
                throw new IllegalStateException(
                        found.isEmpty()
                                ? "no module found"
                                : "its modules are already built in: "
                                        + found.stream()
                                                .map(r -> r.descriptor().name())
                                                .sorted()
                                                .collect(Collectors.joining(", ")));
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
            scan(layer, location, roots, true);
        } catch (RuntimeException | LinkageError e) {
            // FindException (corrupt jar, bad descriptor), ResolutionException (missing dependency),
            // LayerInstantiationException (split packages): the plugin is skipped, the server goes on.
            String reason = e.getClass().getSimpleName() + ": " + reason(e);
            LOG.warn("skipping plugin {}: {}", location, reason);
            building.add(Source.failed(entry, reason));
        }
    }

    private static void enableNativeAccess(ModuleLayer.Controller controller, Module module) {
        try {
            controller.enableNativeAccess(module);
        } catch (IllegalCallerException e) {
            LOG.debug(
                    "cannot grant native access to {} (forge.runtime has none itself): {}",
                    module.getName(),
                    e.getMessage());
        }
    }

    private void scan(ModuleLayer layer, String location, List<String> modules, boolean renderTemplates) {
        Source source = new Source(location);
        Set<String> providerModules = new TreeSet<>();
        for (Discovered<BackendProvider> d : load(layer, BackendProvider.class, location, source.failures)) {
            try {
                String name = d.provider().name();
                backends.add(new Discovered<>(d.provider(), d.module(), location, d.version(), List.of(name)));
                providerModules.add(d.module());
                source.lines.add("backend " + name + " (" + d.module() + ")");
            } catch (RuntimeException | LinkageError e) {
                source.fail(d, "name()", e);
            }
        }
        for (Discovered<ChatTemplateProvider> d : load(layer, ChatTemplateProvider.class, location, source.failures)) {
            try {
                ChatTemplateProvider p = d.provider();
                String family = Objects.requireNonNull(p.family(), "family() returned null");
                List<TemplateVariant> variants =
                        List.copyOf(Objects.requireNonNull(p.variants(), "variants() returned null"));
                Objects.requireNonNull(p.version(), "version() returned null");
                Objects.requireNonNull(p.claim(PROBE_MODEL), "claim() returned null");
                if (renderTemplates) {
                    for (TemplateVariant v : variants) {
                        renders(p, v.name());
                        renderChecks++;
                    }
                }
                List<String> names =
                        variants.stream().map(TemplateVariant::name).toList();
                templateCandidates.add(new Candidate<>(d, source, new ArrayList<>(names), "generic".equals(family)));
                providerModules.add(d.module());
                source.lines.add("template " + family + " " + names + " (" + d.module() + ")");
            } catch (RuntimeException | LinkageError e) {
                source.fail(d, "template check", e);
            }
        }
        for (Discovered<SamplerProvider> d : load(layer, SamplerProvider.class, location, source.failures)) {
            try {
                List<StageInfo> infos =
                        List.copyOf(Objects.requireNonNull(d.provider().stages(), "stages() returned null"));
                Map<String, StageInfo> byName = new LinkedHashMap<>();
                for (StageInfo info : infos) {
                    if (byName.put(info.name(), info) != null) {
                        throw new IllegalStateException("it declares stage '" + info.name() + "' twice");
                    }
                    SamplerStage stage;
                    try {
                        stage = d.provider().create(info.name(), info.defaults());
                    } catch (RuntimeException | LinkageError e) {
                        throw new IllegalStateException(
                                "create(\"" + info.name() + "\") with the defaults threw " + reason(e), e);
                    }
                    Objects.requireNonNull(stage, "create(\"" + info.name() + "\") returned null");
                }
                Candidate<SamplerProvider> c = new Candidate<>(d, source, new ArrayList<>(byName.keySet()), false);
                c.stages.putAll(byName);
                samplerCandidates.add(c);
                providerModules.add(d.module());
                source.lines.add("sampler " + byName.keySet() + " (" + d.module() + ")");
            } catch (RuntimeException | LinkageError e) {
                source.fail(d, "stages check", e);
            }
        }
        // The boot layer holds the JDK and libraries too: list only the modules that provide plugins.
        source.modules.addAll(layer == ModuleLayer.boot() ? List.copyOf(providerModules) : modules);
        building.add(source);
    }

    /** Creates and renders one variant; a {@link TemplateException} is a refusal, not a failure. */
    private static void renders(ChatTemplateProvider p, String variant) {
        ChatTemplate t = p.create(variant, new TemplateContext(PROBE_MODEL, "", ""));
        Objects.requireNonNull(t, "create(\"" + variant + "\") returned null");
        try {
            Objects.requireNonNull(t.render(PROBE_PROMPT), "render of " + variant + " returned null");
        } catch (TemplateException e) {
            LOG.debug("template {} refuses the check's conversation: {}", variant, e.getMessage());
        }
    }

    /** Settles duplicate names, then makes the lists and sources. */
    private void settle() {
        settle("template", templateCandidates);
        settle("sampler stage", samplerCandidates);
        List<SamplerStages.Stage> stageList = new ArrayList<>();
        for (Candidate<ChatTemplateProvider> c : templateCandidates) {
            if (!c.names.isEmpty()) {
                templates.add(c.discovered());
            }
        }
        for (Candidate<SamplerProvider> c : samplerCandidates) {
            if (!c.names.isEmpty()) {
                samplers.add(c.discovered());
                for (String name : c.names) {
                    stageList.add(new SamplerStages.Stage(c.stages.get(name), c.provider, c.module));
                }
            }
        }
        stages = new SamplerStages(stageList);
        for (Source s : building) {
            sources.add(s.build());
        }
    }

    /**
     * The rule for one kind of name: the higher module version wins, else a provider that is not
     * the fallback template family ({@code generic}, whose llama-server format names include
     * {@code kimi-k2}, also a family's) wins over it, else the first found; both sides warned.
     */
    private static <S> void settle(String kind, List<Candidate<S>> candidates) {
        Map<String, List<Candidate<S>>> byName = new LinkedHashMap<>();
        for (Candidate<S> c : candidates) {
            for (String name : c.names) {
                byName.computeIfAbsent(name, k -> new ArrayList<>()).add(c);
            }
        }
        for (var e : byName.entrySet()) {
            List<Candidate<S>> same = e.getValue();
            if (same.size() < 2) {
                continue;
            }
            Candidate<S> winner = same.getFirst();
            for (Candidate<S> c : same) {
                int versions = compare(c.version, winner.version);
                if (versions > 0 || (versions == 0 && winner.fallback && !c.fallback)) {
                    winner = c;
                }
            }
            for (Candidate<S> loser : same) {
                if (loser == winner) {
                    continue;
                }
                String why = compare(winner.version, loser.version) > 0
                        ? "its version " + winner.version.orElseThrow() + " is higher than "
                                + loser.version.map(Object::toString).orElse("none")
                        : loser.fallback && !winner.fallback
                                ? "the generic fallback yields a name another family has"
                                : "it was found first (neither version is higher)";
                loser.names.remove(e.getKey());
                String message = kind + " '" + e.getKey() + "' of " + loser.module + " (" + loser.source.location
                        + ") is shadowed by " + winner.module + " (" + winner.source.location + "): " + why;
                if (loser.fallback && !winner.fallback && compare(winner.version, loser.version) == 0) {
                    LOG.info("{}", message); // by design: llama-server's kimi-k2 format beside the kimi family's
                } else {
                    LOG.warn("{}", message);
                }
                loser.source.warnings.add(message);
                winner.source.warnings.add(kind + " '" + e.getKey() + "' of " + winner.module + " wins over "
                        + loser.module + " (" + loser.source.location + "): " + why);
            }
        }
    }

    private static int compare(Optional<ModuleDescriptor.Version> a, Optional<ModuleDescriptor.Version> b) {
        if (a.isEmpty() || b.isEmpty()) {
            return Boolean.compare(a.isPresent(), b.isPresent());
        }
        return a.get().compareTo(b.get());
    }

    /**
     * The providers of {@code service} defined in {@code layer} itself: {@link ServiceLoader#load(ModuleLayer, Class)}
     * also returns the parents' providers, which were listed with their own layer.
     */
    private static <S> List<Discovered<S>> load(
            ModuleLayer layer, Class<S> service, String location, List<String> failures) {
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
                LOG.warn("skipping a {} in {}: {}", service.getSimpleName(), location, reason(e));
                failures.add(reason(e));
                continue;
            }
            Module module = provider.type().getModule();
            if (module.getLayer() != layer) {
                continue;
            }
            try {
                String version = module.getDescriptor() == null
                        ? ""
                        : module.getDescriptor().rawVersion().orElse("");
                result.add(new Discovered<>(provider.get(), module.getName(), location, version, List.of()));
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

    /**
     * A failure's message with its causes' ("Error reading module: x.jar: zip END header not
     * found"): the outer message alone often says only where, the cause says what.
     */
    static String reason(Throwable e) {
        StringBuilder sb = new StringBuilder(String.valueOf(e.getMessage()));
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        seen.add(e);
        for (Throwable t = e.getCause(); t != null && seen.add(t); t = t.getCause()) {
            String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
            if (!sb.toString().contains(m)) {
                sb.append(": ").append(m);
            }
        }
        return sb.toString();
    }

    /** A provider that passed its checks, with the names it may still lose to another. */
    private static final class Candidate<S> {
        final S provider;
        final Discovered<S> raw;
        final Source source;
        final String module;
        final Optional<ModuleDescriptor.Version> version;
        final List<String> names;
        /** The generic fallback template family, which yields a name another provider has (read at discovery). */
        final boolean fallback;

        final Map<String, StageInfo> stages = new LinkedHashMap<>();

        Candidate(Discovered<S> raw, Source source, List<String> names, boolean fallback) {
            this.fallback = fallback;
            this.provider = raw.provider();
            this.raw = raw;
            this.source = source;
            this.module = raw.module();
            this.version = raw.version().isEmpty()
                    ? Optional.empty()
                    : Optional.of(ModuleDescriptor.Version.parse(raw.version()));
            this.names = names;
        }

        Discovered<S> discovered() {
            return new Discovered<>(provider, module, raw.location(), raw.version(), names);
        }
    }

    /** A source while discovery runs. */
    private static final class Source {
        final String location;
        final List<String> modules = new ArrayList<>();
        final List<String> lines = new ArrayList<>();
        final List<String> failures = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();

        Source(String location) {
            this.location = location;
        }

        static Source failed(Path path, String reason) {
            Source s = new Source(path.toAbsolutePath().toString());
            s.failures.add(reason);
            return s;
        }

        void fail(Discovered<?> d, String what, Throwable e) {
            String reason = d.provider().getClass().getName() + " failed its " + what + " and was dropped: "
                    + e.getClass().getSimpleName() + ": " + reason(e);
            LOG.warn("skipping a provider in {}: {}", location, reason);
            failures.add(reason);
        }

        PluginSource build() {
            return new PluginSource(
                    location,
                    modules,
                    lines,
                    failures.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", failures)),
                    warnings);
        }
    }
}
