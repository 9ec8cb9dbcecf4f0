package forge.runtime.catalog;

import forge.api.ForgeException;
import forge.api.backend.Backend;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
import forge.api.backend.Vocabulary;
import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatTemplate;
import forge.api.template.TemplateContext;
import forge.runtime.engine.Engine;
import forge.runtime.engine.EngineConfig;
import forge.runtime.engine.PromptCache;
import forge.runtime.engine.PromptCacheStore;
import forge.runtime.gguf.GgufReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The models the server answers for, by id and alias, loaded on demand and unloaded by policy
 * (the package documentation has the design).
 *
 * <p>Only files registered here (from {@code --model} and the sources) can ever be loaded: a
 * request names a model by id, never by path.
 */
public final class ModelCatalog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ModelCatalog.class);

    private final Backend backend;
    private final TemplateSelector templates;
    private final EngineConfig engineConfig;
    private final ContextSizing.Policy contextPolicy;
    private final String templateName;
    private final List<ModelEntry> entries = new CopyOnWriteArrayList<>();
    private final java.util.Map<String, String> modelTemplates = new java.util.concurrent.ConcurrentHashMap<>();
    /**
     * Whether weights are mapped from their files rather than read into memory: on by default, as
     * llama-server's (a start costs no copy of the file, and processes share its pages). A file
     * truncated or overwritten in place while mapped would fault with SIGBUS when native code reads
     * a page past its new end, which ends the JVM: {@link #fileWatch} unloads such a model first.
     */
    private volatile boolean mmap = true;
    /** Watches the files of mapped models (see the package documentation); made at the first mapped load. */
    private ModelFileWatch fileWatch; // guarded by this
    /** How long a file changed in place must stay unchanged before its model reloads. */
    static final java.time.Duration FILE_SETTLE = Duration.ofSeconds(2);
    /** How often the watch checks mapped files without an inotify event (file systems it does not see). */
    static final java.time.Duration FILE_POLL = Duration.ofSeconds(1);
    /** A Jinja chat template every model uses instead of its GGUF's ({@code --chat-template-file}); null for none. */
    private volatile String templateSource;
    /** The host prompt cache every engine saves its slots' states into ({@code --cache-ram}); off by default. */
    private volatile PromptCache promptCache = PromptCache.OFF;
    /** Where that cache is kept across restarts ({@code --prompt-cache-dir}); null for memory only. */
    private volatile PromptCacheStore promptCacheStore;
    private volatile Lifecycle lifecycle = Lifecycle.DEFAULT;
    /**
     * Loads and unloads run here, one at a time, on a platform thread: native code reads the
     * weights (it must not pin a request's virtual thread), and one at a time keeps the memory
     * decisions sequential.
     */
    private final ExecutorService loader = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("forge-model-loader").daemon(true).factory());
    /** Checks the keep-alives of idle models; the unloads it decides run on the loader thread. */
    private final ScheduledExecutorService reaper = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("forge-model-reaper").daemon(true).factory());
    /** Every backend candidate and its verdict, for {@code /props}. */
    private volatile java.util.List<forge.runtime.BackendChoice> backendChoices = java.util.List.of();

    /**
     * @param templateName the template every model uses ({@code --template}); empty to choose per model
     */
    public ModelCatalog(Backend backend, TemplateSelector templates, EngineConfig engineConfig, String templateName) {
        this(backend, templates, engineConfig, templateName, ContextSizing.Policy.fixed(engineConfig.contextSize()));
    }

    /**
     * @param templateName  the template every model uses ({@code --template}); empty to choose per model
     * @param contextPolicy how each model's context is sized when it loads ({@code engineConfig}'s
     *                      context size is then not used)
     */
    public ModelCatalog(Backend backend, TemplateSelector templates, EngineConfig engineConfig, String templateName,
                        ContextSizing.Policy contextPolicy) {
        this.backend = backend;
        this.templates = templates;
        this.engineConfig = engineConfig;
        this.templateName = templateName;
        this.contextPolicy = contextPolicy;
        reaper.scheduleWithFixedDelay(this::reap, 200, 200, TimeUnit.MILLISECONDS);
    }

    /** How each model's context is sized when it loads. */
    public ContextSizing.Policy contextPolicy() {
        return contextPolicy;
    }

    /** Maps weights from their files (the default; {@code --no-mmap} turns it off) instead of reading them into memory; see {@link #mmap}. */
    public void useMmap(boolean on) {
        this.mmap = on;
    }

    /**
     * Every model registered after this uses {@code source} as its chat template, in place of its
     * GGUF's {@code tokenizer.chat_template} (llama-server's {@code --chat-template-file}): the
     * families see it as the model's own (one of theirs, exactly, is still rendered by them) and the
     * generic plugin renders any other.
     */
    public void useTemplateSource(String source) {
        this.templateSource = source;
    }

    /**
     * Makes the engines loaded from now on save their slots' states into {@code cache} and restore
     * prompts from it; with a {@code store}, each model's entries are read from disk before its
     * engine starts, and the catalog closes the store when it closes.
     */
    public void usePromptCache(PromptCache cache, PromptCacheStore store) {
        this.promptCache = java.util.Objects.requireNonNull(cache);
        this.promptCacheStore = store;
    }

    /** The host prompt cache the engines share ({@link PromptCache#OFF} when none). */
    public PromptCache promptCache() {
        return promptCache;
    }

    /** Where the prompt cache is kept across restarts, if anywhere. */
    public java.util.Optional<PromptCacheStore> promptCacheStore() {
        return java.util.Optional.ofNullable(promptCacheStore);
    }

    /** How this catalog chooses templates, and every installed one. */
    public TemplateSelector templates() {
        return templates;
    }

    /** The engine settings every model is served with (its context is capped at load by the model's training context). */
    public EngineConfig engineConfig() {
        return engineConfig;
    }

    /** The backend that loads the models, by name. */
    public String backendName() {
        return backend.name();
    }

    /** The backend that loads the models: its devices for {@code /props}. */
    public Backend backend() {
        return backend;
    }

    /** Every backend candidate with its verdict, for {@code /props} (set by the server at start). */
    public java.util.List<forge.runtime.BackendChoice> backendChoices() {
        return backendChoices;
    }

    public void useBackendChoices(java.util.List<forge.runtime.BackendChoice> choices) {
        this.backendChoices = java.util.List.copyOf(choices);
    }

    /**
     * Per-model configuration: the model answering to {@code name} (id or alias, ignoring case),
     * when it is registered, uses {@code template} whatever its metadata says. Set before
     * registering the models.
     */
    public void configureTemplate(String name, String template) {
        modelTemplates.put(name.toLowerCase(Locale.ROOT), template);
    }

    /** The canonical id of a model file: its name without {@code .gguf}. */
    public static String idOf(Path file) {
        return ModelSource.stemOf(file);
    }

    /**
     * How models load and unload: how long an idle one stays ({@code --models-ttl}), the limits
     * of count and memory, and how long a request waits for a load before it is told to retry.
     */
    public record Lifecycle(KeepAlive ttl, UnloadPolicy limits, Duration loadWait) {
        /** Kept until the server stops, no limits, a request waits up to 10 minutes for a load. */
        public static final Lifecycle DEFAULT = new Lifecycle(KeepAlive.FOREVER, UnloadPolicy.UNLIMITED, Duration.ofMinutes(10));

        public Lifecycle {
            Objects.requireNonNull(ttl);
            Objects.requireNonNull(limits);
            Objects.requireNonNull(loadWait);
        }
    }

    /** Sets how models load and unload from now on. */
    public void useLifecycle(Lifecycle lifecycle) {
        this.lifecycle = Objects.requireNonNull(lifecycle);
    }

    public Lifecycle lifecycle() {
        return lifecycle;
    }

    /**
     * Registers a GGUF file ({@code -m}) under its canonical id and the given aliases. Reads its
     * metadata (not its weights) and chooses its chat template; a file that cannot be served is
     * registered as unavailable with the reason.
     *
     * @throws ForgeException when the file does not exist, or a name is taken
     */
    public ModelEntry add(Path file, List<String> aliases) {
        return add(file, aliases, "");
    }

    /**
     * Registers a GGUF file like {@link #add(Path, List)}, with the chat template named for this
     * model (per-model configuration), which wins over the catalog's own.
     *
     * @param template the template this model uses; empty for the catalog's choice
     */
    public ModelEntry add(Path file, List<String> aliases, String template) {
        Path path = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(path)) {
            throw new ForgeException("model file not found: " + path);
        }
        ModelSource.Found found = new ModelSource.Given(List.of(path)).scan().getFirst();
        return register(found, aliases, template).orElseThrow(() -> new ForgeException(
                path + " is a multimodal projector, not a model"));
    }

    /** Registers every model of a folder ({@code --models-dir}); the same as {@link #addSource} of a {@link ModelSource.Folder}. */
    public List<ModelEntry> addFolder(Path folder) {
        return addSource(new ModelSource.Folder(folder));
    }

    /**
     * Registers every model a source finds. A name already taken (by an earlier source) is
     * logged and that model skipped: the first source keeps it. A model already registered from
     * the same file is left as it is, so a source can be scanned again for what is new.
     */
    public List<ModelEntry> addSource(ModelSource source) {
        List<ModelEntry> added = new ArrayList<>();
        for (ModelSource.Found f : source.scan()) {
            if (findExact(f.id()).filter(e -> e.descriptor().path().equals(f.path())).isPresent()) {
                continue; // registered by an earlier scan of this source (a refresh after a pull)
            }
            try {
                register(f, List.of(), "").ifPresent(added::add);
            } catch (ForgeException e) {
                LOG.warn("{}: skipping {} ({}): {}", source.name(), f.id(), f.path(), e.getMessage());
            }
        }
        return added;
    }

    /**
     * Gives the model answering to {@code target} another name ({@code ~/.forge/models.json}).
     *
     * @throws ForgeException when no model answers to {@code target} or the alias is taken
     */
    public void alias(String alias, String target) {
        ModelEntry entry = find(target).orElseThrow(() -> new ForgeException("alias " + alias + ": no model answers to '" + target + "'"));
        if (entry.descriptor().answersTo(alias)) {
            return;
        }
        if (findExact(alias).isPresent()) {
            throw new ForgeException("alias " + alias + ": '" + alias + "' already names " + findExact(alias).get().id());
        }
        ModelDescriptor d = entry.descriptor();
        List<String> aliases = new ArrayList<>(d.aliases());
        aliases.add(alias);
        entry.descriptor(new ModelDescriptor(d.id(), aliases, d.path(), d.metadata()));
    }

    /**
     * Registers what a source found: reads the GGUF header, checks that the file is whole and
     * that the backend knows its architecture, chooses the template and checks that it parses.
     * Anything wrong makes the entry unavailable with the reason; a projector is not registered.
     */
    private Optional<ModelEntry> register(ModelSource.Found found, List<String> aliases, String template) {
        Path path = found.path();
        String problem = found.problem();
        ModelMetadata metadata = new ModelMetadata(java.util.Map.of(), java.util.Map.of());
        if (problem.isEmpty()) {
            try {
                // the reader checks every tensor against the file's end: a cut-off download fails here
                metadata = withTemplate(GgufReader.read(path).metadata(), templateSource);
            } catch (RuntimeException e) {
                String why = String.valueOf(e.getMessage());
                why = why.startsWith(path + ": ") ? why.substring(path.toString().length() + 2) : why;
                problem = why.startsWith("truncated") ? why : "not a readable GGUF file: " + why;
            }
        }
        if (metadata.architecture().filter("clip"::equals).isPresent()) {
            LOG.debug("{}: {} is a multimodal projector, not a model", found.source(), path);
            return Optional.empty();
        }
        if (problem.isEmpty()) {
            problem = backend.refuses(metadata).orElse("");
        }
        ModelDescriptor descriptor = new ModelDescriptor(found.id(), aliases, path, metadata);
        for (String name : descriptor.names()) {
            if (findExact(name).isPresent()) {
                throw new ForgeException("two models answer to '" + name + "': " + findExact(name).get().descriptor().path()
                        + " and " + path);
            }
        }
        String configured = !template.isEmpty() ? template : descriptor.names().stream()
                .map(n -> modelTemplates.get(n.toLowerCase(Locale.ROOT))).filter(Objects::nonNull)
                .findFirst().orElse(templateName);
        TemplateSelection selection = null;
        try {
            selection = templates.select(descriptor, configured);
        } catch (ForgeException e) {
            if (!configured.isEmpty()) {
                throw e; // a --template name nobody renders: the command line is wrong, not the model
            }
            problem = problem.isEmpty() ? e.getMessage() : problem;
        }
        String templateError = null;
        if (problem.isEmpty() && selection != null) {
            templateError = unusableTemplate(descriptor, selection).orElse(null);
            problem = templateError != null ? templateError : "";
        }
        ModelState state = problem.isEmpty() ? new ModelState.Unloaded() : new ModelState.Unavailable(problem);
        ModelEntry entry = new ModelEntry(descriptor, selection, found.source(), found.parts(), state, templateError);
        entries.add(entry);
        if (problem.isEmpty()) {
            LOG.info("model {}{} [{}] ({}): chat template {} ({}: {})", descriptor.id(),
                    aliases.isEmpty() ? "" : " alias " + String.join(", ", aliases), found.source(), path,
                    selection.variant(), selection.rule(), selection.reason());
        } else {
            LOG.warn("model {} [{}] ({}) is unavailable: {}", descriptor.id(), found.source(), path, problem);
        }
        return Optional.of(entry);
    }

    /** Why the chosen template cannot render this model's conversations (its own Jinja does not parse, say). */
    private static Optional<String> unusableTemplate(ModelDescriptor d, TemplateSelection selection) {
        try {
            // No vocabulary is loaded yet: BOS and EOS render as empty text, which parsing does not need.
            return selection.provider().create(selection.variant(), new TemplateContext(d, "", "")).unusable();
        } catch (RuntimeException e) {
            return Optional.of("the chat template " + selection.variant() + " cannot be created: " + e.getMessage());
        }
    }

    /** {@code metadata} with {@code source} as its chat template; unchanged when {@code source} is null. */
    public static ModelMetadata withTemplate(ModelMetadata metadata, String source) {
        if (source == null) {
            return metadata;
        }
        java.util.Map<String, Object> values = new java.util.LinkedHashMap<>(metadata.values());
        values.put("tokenizer.chat_template", source);
        return new ModelMetadata(values, metadata.arrayLengths());
    }

    public List<ModelEntry> entries() {
        return List.copyOf(entries);
    }

    /** The model answering to {@code name}: its id or an alias, exactly, else ignoring case. */
    public Optional<ModelEntry> find(String name) {
        return findExact(name).or(() -> entries.stream()
                .filter(e -> e.descriptor().names().stream().anyMatch(n -> n.equalsIgnoreCase(name))).findFirst());
    }

    private Optional<ModelEntry> findExact(String name) {
        return entries.stream().filter(e -> e.descriptor().answersTo(name)).findFirst();
    }

    // ---- requests, leases, loading

    /**
     * A request's use of the models it names: every model {@link #serve} hands out while the
     * scope is open stays loaded until the scope closes. Open one per request, on its thread.
     */
    public final class RequestScope implements AutoCloseable {
        private final List<Lease> leases = new ArrayList<>();
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
            for (Lease l : leases) {
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

    /** One user's hold on a loaded model: while any is open, the model does not unload. */
    public final class Lease implements AutoCloseable {
        private final ModelEntry entry;
        private final ServedModel model;
        private boolean closed;

        private Lease(ModelEntry entry, ServedModel model) {
            this.entry = entry;
            this.model = model;
        }

        public ServedModel model() {
            return model;
        }

        @Override
        public void close() {
            close(null);
        }

        synchronized void close(KeepAlive keepAlive) {
            if (!closed) {
                closed = true;
                release(entry, keepAlive);
            }
        }
    }

    /**
     * The entry's model, loading it (weights, engine, template) on the loader thread when it is
     * not loaded; concurrent callers wait for one load, each at most {@link Lifecycle#loadWait}.
     * Inside a {@link RequestScope} the model is leased until the scope closes.
     *
     * @throws ModelUnavailableException for an unavailable model, one whose load failed, or one still loading after the wait
     */
    public ServedModel serve(ModelEntry entry) {
        Lease lease = lease(entry);
        RequestScope scope = SCOPE.get();
        if (scope != null) {
            scope.leases.add(lease);
        } else {
            lease.close(); // a caller outside any request (start-up, tests): loaded, not held
        }
        return lease.model();
    }

    /**
     * Leases the entry's model, loading it first when needed (see {@link #serve}); the model does
     * not unload until the lease is closed.
     */
    public Lease lease(ModelEntry entry) {
        boolean counted = false;
        try {
            while (true) {
                CompletableFuture<ServedModel> future;
                synchronized (entry) {
                    ModelState state = entry.state();
                    if (state instanceof ModelState.Failed f && !f.stamp().equals(entry.stamp())) {
                        LOG.info("{}: its file changed since its load failed; trying again", entry.id());
                        entry.state(state = new ModelState.Unloaded());
                    }
                    switch (state) {
                        case ModelState.Loaded l -> {
                            if (counted) {
                                entry.waiting(-1);
                                counted = false;
                            }
                            entry.users(1);
                            return new Lease(entry, l.model());
                        }
                        case ModelState.Unavailable u -> throw new ModelUnavailableException(entry.id(),
                                ModelUnavailableException.Kind.UNAVAILABLE, u.reason());
                        case ModelState.Failed f -> throw new ModelUnavailableException(entry.id(),
                                ModelUnavailableException.Kind.FAILED, f.reason());
                        case ModelState.Reloading r -> throw reloading(entry, r);
                        case ModelState.Unloaded u -> startLoad(entry);
                        case ModelState.Loading l -> {
                        }
                    }
                    future = entry.loading();
                    if (!counted) {
                        entry.waiting(1);
                        counted = true;
                    }
                }
                try {
                    future.get(lifecycle.loadWait().toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    ModelState s = entry.state();
                    String progress = s instanceof ModelState.Loading l ? Math.round(l.progress() * 100) + "% read, "
                            + l.waiting() + " request(s) waiting" : s.value();
                    throw new ModelUnavailableException(entry.id(), ModelUnavailableException.Kind.LOADING, "the model '"
                            + entry.id() + "' is still loading (" + progress + "); retry shortly");
                } catch (ExecutionException e) {
                    // the state is Failed now: the next turn of the loop says why
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ForgeException("interrupted while waiting for " + entry.id() + " to load", e);
                }
            }
        } finally {
            if (counted) {
                entry.waiting(-1);
            }
        }
    }

    /**
     * Starts loading {@code entry} on the loader thread, when it is unloaded (or failed and its
     * file changed); returns the load's future, or a completed one when it is loaded.
     *
     * @throws ModelUnavailableException for an unavailable model, or one whose load failed and whose file is unchanged
     */
    public CompletableFuture<ServedModel> load(ModelEntry entry) {
        synchronized (entry) {
            ModelState state = entry.state();
            if (state instanceof ModelState.Failed f && !f.stamp().equals(entry.stamp())) {
                entry.state(state = new ModelState.Unloaded());
            }
            return switch (state) {
                case ModelState.Loaded l -> CompletableFuture.completedFuture(l.model());
                case ModelState.Unavailable u -> throw new ModelUnavailableException(entry.id(),
                        ModelUnavailableException.Kind.UNAVAILABLE, u.reason());
                case ModelState.Failed f -> throw new ModelUnavailableException(entry.id(),
                        ModelUnavailableException.Kind.FAILED, f.reason());
                case ModelState.Reloading r -> throw reloading(entry, r);
                case ModelState.Unloaded u -> {
                    startLoad(entry);
                    yield entry.loading();
                }
                case ModelState.Loading l -> entry.loading();
            };
        }
    }

    /** Under the entry's monitor: state Loading, and the load queued on the loader thread. */
    private void startLoad(ModelEntry entry) {
        CompletableFuture<ServedModel> future = new CompletableFuture<>();
        entry.loading(future);
        entry.state(new ModelState.Loading(0, entry.waiting()));
        loader.execute(() -> {
            try {
                makeRoomFor(entry);
                // [file watch hook] the files' identities before the load reads them: the watch compares with these
                List<FileIdentity> before = mmap ? identities(entry) : null;
                ServedModel model = loadNow(entry);
                boolean unloadNow;
                synchronized (entry) {
                    entry.kvBytes(model.kvBytes());
                    entry.state(new ModelState.Loaded(model));
                    entry.users(0); // now counts as used: a fresh load is not the least recently used
                    unloadNow = entry.unloadWhenIdle() && entry.waiting() == 0;
                }
                future.complete(model);
                if (before != null) {
                    fileWatch().watch(entry, entry.parts(), before); // [file watch hook]
                }
                if (unloadNow) {
                    unloadIfIdle(entry, "unload requested while it loaded");
                }
            } catch (RuntimeException | Error e) {
                String reason = "the model failed to load: " + (e.getMessage() != null ? e.getMessage() : e.toString());
                LOG.warn("{}: {} (not tried again until its file changes)", entry.id(), reason);
                entry.state(new ModelState.Failed(reason, entry.stamp()));
                future.completeExceptionally(e);
            }
        });
    }

    /**
     * Unloads {@code entry} now when no request uses it, else as soon as the last one ends.
     *
     * @return false when it was not loaded (nor loading)
     */
    public boolean unload(ModelEntry entry) {
        synchronized (entry) {
            ModelState state = entry.state();
            if (state instanceof ModelState.Loading) {
                entry.unloadWhenIdle(true);
                return true;
            }
            if (!(state instanceof ModelState.Loaded)) {
                return false;
            }
            if (entry.users() > 0 || entry.waiting() > 0) {
                entry.unloadWhenIdle(true);
                LOG.info("{}: unloads when its {} request(s) end", entry.id(), entry.users());
                return true;
            }
        }
        loader.execute(() -> unloadIfIdle(entry, "unload requested"));
        return true;
    }

    private void release(ModelEntry entry, KeepAlive requested) {
        boolean now;
        synchronized (entry) {
            entry.users(-1);
            if (requested != null) {
                entry.keepAlive(requested);
            } else {
                entry.keepAlive(null);
            }
            KeepAlive k = requested != null ? requested : lifecycle.ttl();
            now = entry.users() == 0 && entry.waiting() == 0 && (entry.unloadWhenIdle() || k.duration().isZero());
        }
        retireIfReleased(entry); // [file watch hook] a model whose file changed is freed when its last request ends
        if (now) {
            loader.execute(() -> unloadIfIdle(entry, requested != null && requested.duration().isZero()
                    ? "keep_alive 0" : "unload requested"));
        }
    }

    /** On the loader thread: unloads the entry unless a request took it meanwhile. */
    private void unloadIfIdle(ModelEntry entry, String why) {
        ServedModel model;
        synchronized (entry) {
            if (!(entry.state() instanceof ModelState.Loaded l) || entry.users() > 0 || entry.waiting() > 0) {
                return;
            }
            model = l.model();
            entry.state(new ModelState.Unloaded());
            entry.unloadWhenIdle(false);
            entry.keepAlive(null);
        }
        LOG.info("unloading {} ({})", entry.id(), why);
        forgetFiles(entry); // [file watch hook]
        try {
            model.close();
        } catch (RuntimeException e) {
            LOG.warn("unloading {}: {}", entry.id(), e.toString());
        }
    }

    /** The loaded models as the unload policy sees them. */
    private List<UnloadPolicy.Resident> residents(ModelEntry except) {
        List<UnloadPolicy.Resident> out = new ArrayList<>();
        for (ModelEntry e : entries) {
            if (e == except) {
                continue;
            }
            synchronized (e) {
                if (e.state() instanceof ModelState.Loaded) {
                    KeepAlive k = e.keepAlive().orElse(lifecycle.ttl());
                    long expires = k.forever() ? Long.MAX_VALUE : e.lastUsed() + k.duration().toNanos();
                    out.add(new UnloadPolicy.Resident(e.id(), e.memoryBytes(), e.lastUsed(), e.users() + e.waiting(), expires));
                }
            }
        }
        return out;
    }

    /** On the loader thread, before a load: unloads the least recently used idle models the limits ask for. */
    private void makeRoomFor(ModelEntry entry) {
        List<UnloadPolicy.Resident> loaded = residents(entry);
        List<String> victims = lifecycle.limits().toMakeRoom(loaded, entry.fileBytes());
        for (String id : victims) {
            find(id).ifPresent(e -> unloadIfIdle(e, "least recently used: --models-max " + lifecycle.limits().maxModels()
                    + ", --models-memory " + (lifecycle.limits().memoryBytes() >> 20) + " MiB"));
        }
    }

    /** The reaper's turn: unloads the idle models whose keep-alive has run out. */
    private void reap() {
        try {
            for (String id : lifecycle.limits().expired(residents(null), System.nanoTime())) {
                find(id).ifPresent(e -> loader.execute(() -> {
                    // checked again on the loader thread: a request may have taken it meanwhile
                    if (lifecycle.limits().expired(residents(null), System.nanoTime()).contains(id)) {
                        unloadIfIdle(e, "idle past its keep-alive");
                    }
                }));
            }
        } catch (RuntimeException e) {
            LOG.warn("model reaper: {}", e.toString());
        }
    }

    /** On the loader thread: reads the weights and starts the engine. */
    private ServedModel loadNow(ModelEntry entry) {
        ModelDescriptor d = entry.descriptor();
        long start = System.nanoTime();
        LOG.info("loading {} from {}", d.id(), d.path());
        int[] lastQuarter = {-1};
        LoadProgress progress = fraction -> {
            synchronized (entry) {
                if (entry.state() instanceof ModelState.Loading l) {
                    entry.state(new ModelState.Loading(Math.min(1, fraction), l.waiting()));
                }
            }
            int quarter = (int) (fraction * 4);
            if (quarter > lastQuarter[0]) {
                lastQuarter[0] = quarter;
                LOG.info("loading {}: {}% ({} request(s) waiting)", d.id(), Math.min(100, quarter * 25), entry.waiting());
            }
            return true;
        };
        LoadedModel model = backend.load(new ModelLoadParams(d.path(), -1, mmap, false), progress);
        try {
            Vocabulary vocab = model.vocabulary();
            ChatTemplate template = entry.template().provider().create(entry.template().variant(),
                    new TemplateContext(d, tokenText(vocab, vocab.bos()), tokenText(vocab, vocab.eos())));
            // No slot gets more context than the model was trained for; without -c, what memory holds.
            ContextSizing.Choice context = ContextSizing.choose(contextPolicy, model.info().trainContext(),
                    ContextSizing.kvBytesPerToken(d.metadata(), engineConfig.kvCacheType()), model.info().sizeBytes(),
                    engineConfig.slots());
            LOG.info("context for {}: {} cells, {} per slot ({}: {})", d.id(), context.contextSize(), context.slotContext(),
                    context.source(), context.reason());
            EngineConfig config = engineConfig.withContext(context.contextSize(), engineConfig.slots());
            PromptCache.Key key = promptCacheKey(d, config);
            Engine engine = new Engine(d.id(), model, config, promptCache, key);
            LOG.info("loaded {} in {} ms: {}", d.id(), (System.nanoTime() - start) / 1_000_000, model.info().description());
            long kv = ContextSizing.kvBytesPerToken(d.metadata(), engineConfig.kvCacheType()).orElse(0) * context.contextSize();
            return new ServedModel(d, model, engine, template, entry.template(), context, kv);
        } catch (RuntimeException e) {
            model.close();
            throw e;
        }
    }

    /** The key of a model's entries in the prompt cache, after reading its files from disk; null when there is no cache. */
    private PromptCache.Key promptCacheKey(ModelDescriptor d, EngineConfig config) {
        if (!promptCache.enabled()) {
            return null;
        }
        try {
            PromptCache.Key key = PromptCache.Key.of(d.path(), config);
            PromptCacheStore store = promptCacheStore;
            if (store != null) {
                int loaded = store.load(key);
                LOG.info("prompt cache: {} entr{} of {} read from {}", loaded, loaded == 1 ? "y" : "ies", d.id(), store.dir());
            }
            return key;
        } catch (java.io.IOException e) {
            LOG.warn("no prompt cache for {}: cannot read its model file's identity: {}", d.id(), e.getMessage());
            return null;
        }
    }

    // ---- [file watch hook] models whose mapped file changed (issue 30). The watching is ModelFileWatch's;
    // the catalog's part is this section and the lines marked "[file watch hook]": watch a mapped model
    // once loaded, forget it when unloaded, and on a change in place: unload now, answer 503 while the
    // file settles, reload. The package documentation has the lifecycle.

    /** The file watch, made at the first mapped load. */
    private synchronized ModelFileWatch fileWatch() {
        if (fileWatch == null) {
            fileWatch = new ModelFileWatch(new ModelFileWatch.Listener() {
                @Override
                public void changedInPlace(ModelEntry entry, String why) {
                    fileChangedInPlace(entry, why);
                }

                @Override
                public void settled(ModelEntry entry) {
                    fileSettled(entry);
                }
            }, FILE_SETTLE, FILE_POLL);
        }
        return fileWatch;
    }

    private synchronized void forgetFiles(ModelEntry entry) {
        if (fileWatch != null) {
            fileWatch.forget(entry);
        }
    }

    /** The identities of the entry's files now; a file that is gone fails the load that follows anyway. */
    private static List<FileIdentity> identities(ModelEntry entry) {
        List<FileIdentity> out = new ArrayList<>();
        for (Path p : entry.parts()) {
            try {
                out.add(FileIdentity.of(p).orElseThrow(() -> new ForgeException("the model file " + p + " is gone")));
            } catch (IOException e) {
                throw new ForgeException("cannot read the attributes of " + p + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    private static ModelUnavailableException reloading(ModelEntry entry, ModelState.Reloading r) {
        return new ModelUnavailableException(entry.id(), ModelUnavailableException.Kind.LOADING, "the model '" + entry.id()
                + "' is reloading: " + r.reason() + "; retry shortly");
    }

    /**
     * The watch saw the loaded model's file changed in place: new requests get 503 from now on, the
     * engine stops before its next decode (its running requests fail with 503), and the weights are
     * freed (unmapped) as soon as no request holds the model, at once when it is idle.
     */
    void fileChangedInPlace(ModelEntry entry, String why) {
        ServedModel model;
        synchronized (entry) {
            if (!(entry.state() instanceof ModelState.Loaded l)) {
                return;
            }
            model = l.model();
            entry.state(new ModelState.Reloading(why, model, false));
            entry.unloadWhenIdle(false);
        }
        // Returns once the step running now (if any) is done: no decode reads the mapping after this.
        model.halt("the model '" + entry.id() + "' is reloading: " + why + "; retry shortly");
        retireIfReleased(entry);
    }

    /** When the entry's model retires (its file changed) and no request holds it any more: frees it, and reloads when settled. */
    private void retireIfReleased(ModelEntry entry) {
        ServedModel model;
        boolean settled;
        synchronized (entry) {
            if (!(entry.state() instanceof ModelState.Reloading r) || r.retiring() == null || entry.users() > 0) {
                return;
            }
            model = r.retiring();
            settled = r.settled();
            entry.state(new ModelState.Reloading(r.reason(), null, settled));
        }
        LOG.info("unloading {} (its file changed in place)", entry.id());
        try {
            model.close();
        } catch (RuntimeException e) {
            LOG.warn("unloading {}: {}", entry.id(), e.toString());
        }
        if (settled) {
            fileSettled(entry);
        }
    }

    /** The watch saw the changed file quiet for the settle time: the model reloads (once its old weights are freed). */
    void fileSettled(ModelEntry entry) {
        synchronized (entry) {
            if (!(entry.state() instanceof ModelState.Reloading r)) {
                return;
            }
            if (r.retiring() != null) {
                entry.state(new ModelState.Reloading(r.reason(), r.retiring(), true)); // retireIfReleased reloads
                return;
            }
            entry.state(new ModelState.Unloaded());
            startLoad(entry); // a bad new file ends Failed, with the load's reason, until it changes again
        }
    }

    private static String tokenText(Vocabulary vocab, java.util.OptionalInt token) {
        return token.isPresent() ? new String(vocab.piece(token.getAsInt(), true), StandardCharsets.UTF_8) : "";
    }

    @Override
    public void close() {
        ModelFileWatch watch;
        synchronized (this) {
            watch = fileWatch;
        }
        if (watch != null) {
            watch.close(); // first: no model is retired or reloaded while the catalog closes
        }
        reaper.shutdownNow();
        loader.shutdown();
        try {
            if (!loader.awaitTermination(1, TimeUnit.MINUTES)) {
                LOG.warn("a model load is still running at shutdown");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (ModelEntry e : entries) {
            e.served().ifPresent(ServedModel::close);
            if (e.state() instanceof ModelState.Reloading r && r.retiring() != null) {
                r.retiring().close(); // [file watch hook] its file changed while a request still held it
            }
            e.state(new ModelState.Unloaded());
        }
        PromptCacheStore store = promptCacheStore;
        if (store != null) {
            store.close(); // after the engines: their last saves are written
        }
    }
}
