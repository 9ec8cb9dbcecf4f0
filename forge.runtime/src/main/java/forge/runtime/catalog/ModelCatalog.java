package forge.runtime.catalog;

import forge.api.backend.Backend;
import forge.runtime.BackendChoice;
import forge.runtime.engine.EngineConfig;
import forge.runtime.engine.PromptCache;
import forge.runtime.engine.PromptCacheStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The models the server answers for: a {@link ModelRegistry} (ids, aliases, sources) and a
 * {@link ModelLoader} (loader thread, leases, unload policy) over one {@link CatalogConfig},
 * fixed when the catalog is made (the package documentation has the design).
 *
 * <p>Only files registered here (from {@code --model} and the sources) can ever be loaded: a
 * request names a model by id, never by path.
 */
public final class ModelCatalog implements AutoCloseable {

    private final CatalogConfig config;
    private final ModelRegistry registry;
    private final ModelLoader loader;

    /** An empty catalog configured by {@code config}; its loader and reaper threads start now. */
    public ModelCatalog(CatalogConfig config) {
        this.config = Objects.requireNonNull(config);
        this.registry = new ModelRegistry(config);
        this.loader = new ModelLoader(config, registry);
    }

    /** What this catalog was made with. */
    public CatalogConfig config() {
        return config;
    }

    /** The registry of the models: ids, aliases, sources. */
    public ModelRegistry registry() {
        return registry;
    }

    /** The loader of the models: loads, leases, unloads. */
    public ModelLoader loader() {
        return loader;
    }

    // ---- the configuration, as the server reads it

    /** How each model's context is sized when it loads. */
    public ContextSizing.Policy contextPolicy() {
        return config.contextPolicy();
    }

    /** The host prompt cache the engines share ({@link PromptCache#OFF} when none). */
    public PromptCache promptCache() {
        return config.promptCache();
    }

    /** Where the prompt cache is kept across restarts, if anywhere. */
    public Optional<PromptCacheStore> promptCacheStore() {
        return config.promptCacheStore();
    }

    /** How this catalog chooses templates, and every installed one. */
    public TemplateSelector templates() {
        return config.templates();
    }

    /** The engine settings every model is served with (its context is capped at load by the model's training context). */
    public EngineConfig engineConfig() {
        return config.engineConfig();
    }

    /** The backend that loads the models, by name. */
    public String backendName() {
        return config.backend().name();
    }

    /** The backend that loads the models: its devices for {@code /props}. */
    public Backend backend() {
        return config.backend();
    }

    /** Every backend candidate with its verdict, for {@code /props}. */
    public List<BackendChoice> backendChoices() {
        return config.backendChoices();
    }

    /** How models load and unload. */
    public ModelLoader.Lifecycle lifecycle() {
        return config.lifecycle();
    }

    // ---- registration (the registry's)

    /** See {@link ModelRegistry#add(Path, List)}. */
    public ModelEntry add(Path file, List<String> aliases) {
        return registry.add(file, aliases);
    }

    /** See {@link ModelRegistry#add(Path, List, String)}. */
    public ModelEntry add(Path file, List<String> aliases, String template) {
        return registry.add(file, aliases, template);
    }

    /** See {@link ModelRegistry#addFolder}. */
    public List<ModelEntry> addFolder(Path folder) {
        return registry.addFolder(folder);
    }

    /** See {@link ModelRegistry#addSource}. */
    public List<ModelEntry> addSource(ModelSource source) {
        return registry.addSource(source);
    }

    /** See {@link ModelRegistry#alias}. */
    public void alias(String alias, String target) {
        registry.alias(alias, target);
    }

    /** Every registered model, in the order registered. */
    public List<ModelEntry> entries() {
        return registry.entries();
    }

    /** The model answering to {@code name}: its id or an alias, exactly, else ignoring case. */
    public Optional<ModelEntry> find(String name) {
        return registry.find(name);
    }

    // ---- requests (the loader's leases, held for a request)

    /**
     * A request's use of the models it names: every model {@link #serve} hands out while the
     * scope is open stays loaded until the scope closes. Open one per request, on its thread.
     */
    public static final class RequestScope implements AutoCloseable {
        private final List<ModelLoader.Lease> leases = new ArrayList<>();
        private final RequestScope outer;
        private KeepAlive keepAlive;

        private RequestScope(RequestScope outer) {
            this.outer = outer;
        }

        /** The request's own {@code keep_alive}, applied to its models when it ends. */
        public void keepAlive(KeepAlive k) {
            this.keepAlive = k;
        }

        @Override
        public void close() {
            SCOPE.set(outer);
            for (ModelLoader.Lease l : leases) {
                l.close(keepAlive);
            }
            leases.clear();
        }
    }

    private static final ThreadLocal<RequestScope> SCOPE = new ThreadLocal<>();

    /** Opens a request scope on this thread (see {@link RequestScope}). */
    public RequestScope requestScope() {
        RequestScope scope = new RequestScope(SCOPE.get());
        SCOPE.set(scope);
        return scope;
    }

    /**
     * The entry's model, loading it (weights, engine, template) on the loader thread when it is
     * not loaded; concurrent callers wait for one load, each at most {@link ModelLoader.Lifecycle#loadWait}.
     * Inside a {@link RequestScope} the model is leased until the scope closes.
     *
     * @throws ModelUnavailableException for an unavailable model, one whose load failed, or one still loading after the wait
     */
    public ServedModel serve(ModelEntry entry) {
        ModelLoader.Lease lease = loader.lease(entry);
        RequestScope scope = SCOPE.get();
        if (scope != null) {
            scope.leases.add(lease);
        } else {
            lease.close(); // a caller outside any request (start-up, tests): loaded, not held
        }
        return lease.model();
    }

    /** See {@link ModelLoader#lease}. */
    public ModelLoader.Lease lease(ModelEntry entry) {
        return loader.lease(entry);
    }

    /** See {@link ModelLoader#load}. */
    public CompletableFuture<ServedModel> load(ModelEntry entry) {
        return loader.load(entry);
    }

    /** See {@link ModelLoader#unload}. */
    public boolean unload(ModelEntry entry) {
        return loader.unload(entry);
    }

    /** Stops the loader (after the load running, if any), unloads every model and closes the prompt cache's store. */
    @Override
    public void close() {
        loader.close();
    }
}
