package forge.runtime.catalog;

import forge.api.ForgeException;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.LoraAdapter;
import forge.api.backend.ModelLoadParams;
import forge.api.backend.Vocabulary;
import forge.api.model.ModelDescriptor;
import forge.api.template.ChatTemplate;
import forge.api.template.TemplateContext;
import forge.runtime.engine.DraftSetup;
import forge.runtime.engine.Engine;
import forge.runtime.engine.EngineConfig;
import forge.runtime.engine.PromptCache;
import forge.runtime.engine.PromptCacheStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalog's loader: loads the registry's models on demand on its loader thread, hands out
 * {@link Lease}s on them, and unloads them by policy (keep-alive, count and memory limits); the
 * package documentation has the design of the lifecycle and its locking.
 *
 * <p>Every unload, whoever asks for it (a request's end, the reaper, the limits before a load,
 * {@link #unload}), ends in one method on the loader thread, which unloads only a model nobody
 * uses.
 */
public final class ModelLoader implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ModelLoader.class);

    private final CatalogConfig config;
    private final ModelRegistry registry;
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
    /** Watches the files of mapped models (see the package documentation); made at the first mapped load. */
    private ModelFileWatch fileWatch; // guarded by this
    /** Entries whose retiring model is being freed now ({@link #retireIfReleased}); changed under the entry's lock. */
    private final Set<ModelEntry> freeing = ConcurrentHashMap.newKeySet();
    /** How often the watch checks mapped files without an inotify event (file systems it does not see). */
    static final Duration FILE_POLL = Duration.ofSeconds(1);

    /**
     * How models load and unload: how long an idle one stays ({@code --models-ttl}), the limits
     * of count and memory, and how long a request waits for a load before it is told to retry.
     */
    public record Lifecycle(KeepAlive ttl, UnloadPolicy limits, Duration loadWait) {
        /** Kept until the server stops, no limits, a request waits up to 10 minutes for a load. */
        public static final Lifecycle DEFAULT =
                new Lifecycle(KeepAlive.FOREVER, UnloadPolicy.UNLIMITED, Duration.ofMinutes(10));

        public Lifecycle {
            Objects.requireNonNull(ttl);
            Objects.requireNonNull(limits);
            Objects.requireNonNull(loadWait);
        }
    }

    /** A loader of {@code registry}'s models as {@code config} says; its reaper starts now. */
    public ModelLoader(CatalogConfig config, ModelRegistry registry) {
        this.config = config;
        this.registry = registry;
        reaper.scheduleWithFixedDelay(this::reap, 200, 200, TimeUnit.MILLISECONDS);
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

        /** The model held. */
        public ServedModel model() {
            return model;
        }

        @Override
        public void close() {
            close(null);
        }

        /** Closes the lease once, with the request's {@code keep_alive} (null for the catalog's); a second close does nothing. */
        synchronized void close(KeepAlive keepAlive) {
            if (!closed) {
                closed = true;
                release(entry, keepAlive);
            }
        }
    }

    /**
     * Leases the entry's model, loading it (weights, engine, template) on the loader thread when
     * it is not loaded; concurrent callers wait for one load, each at most
     * {@link Lifecycle#loadWait}. The model does not unload until the lease is closed.
     *
     * @throws ModelUnavailableException for an unavailable model, one whose load failed, or one still loading after the wait
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
                        case ModelState.Unavailable u ->
                            throw new ModelUnavailableException(
                                    entry.id(), ModelUnavailableException.Kind.UNAVAILABLE, u.reason());
                        case ModelState.Failed f ->
                            throw new ModelUnavailableException(
                                    entry.id(), ModelUnavailableException.Kind.FAILED, f.reason());
                        case ModelState.Reloading r -> throw reloading(entry, r);
                        case ModelState.Unloaded u -> startLoad(entry);
                        case ModelState.Loading l -> {}
                    }
                    future = entry.loading();
                    if (!counted) {
                        entry.waiting(1);
                        counted = true;
                    }
                }
                try {
                    future.get(config.lifecycle().loadWait().toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    ModelState s = entry.state();
                    String progress = s instanceof ModelState.Loading l
                            ? Math.round(l.progress() * 100) + "% read, " + l.waiting() + " request(s) waiting"
                            : s.value();
                    throw new ModelUnavailableException(
                            entry.id(),
                            ModelUnavailableException.Kind.LOADING,
                            "the model '" + entry.id() + "' is still loading (" + progress + "); retry shortly");
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
                case ModelState.Unavailable u ->
                    throw new ModelUnavailableException(
                            entry.id(), ModelUnavailableException.Kind.UNAVAILABLE, u.reason());
                case ModelState.Failed f ->
                    throw new ModelUnavailableException(entry.id(), ModelUnavailableException.Kind.FAILED, f.reason());
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
                // the files' identities before the load reads them: the watch compares with these
                List<FileIdentity> before = config.mmap() ? identities(entry) : null;
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
                    fileWatch().watch(entry, entry.parts(), before);
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
            KeepAlive k = requested != null ? requested : config.lifecycle().ttl();
            now = entry.users() == 0
                    && entry.waiting() == 0
                    && (entry.unloadWhenIdle() || k.duration().isZero());
        }
        retireIfReleased(entry); // a model whose file changed is freed when its last request ends
        if (now) {
            loader.execute(() -> unloadIfIdle(
                    entry, requested != null && requested.duration().isZero() ? "keep_alive 0" : "unload requested"));
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
        forgetFiles(entry);
        try {
            model.close();
        } catch (RuntimeException e) {
            LOG.warn("unloading {}: {}", entry.id(), e.toString());
        }
    }

    /** The loaded models as the unload policy sees them. */
    private List<UnloadPolicy.Resident> residents(ModelEntry except) {
        List<UnloadPolicy.Resident> out = new ArrayList<>();
        for (ModelEntry e : registry.entries()) {
            if (e == except) {
                continue;
            }
            synchronized (e) {
                if (e.state() instanceof ModelState.Loaded) {
                    KeepAlive k = e.keepAlive().orElse(config.lifecycle().ttl());
                    long expires = k.forever()
                            ? Long.MAX_VALUE
                            : e.lastUsed() + k.duration().toNanos();
                    out.add(new UnloadPolicy.Resident(
                            e.id(), e.memoryBytes(), e.lastUsed(), e.users() + e.waiting(), expires));
                }
            }
        }
        return out;
    }

    /** On the loader thread, before a load: unloads the least recently used idle models the limits ask for. */
    private void makeRoomFor(ModelEntry entry) {
        List<UnloadPolicy.Resident> loaded = residents(entry);
        List<String> victims = config.lifecycle().limits().toMakeRoom(loaded, entry.fileBytes());
        for (String id : victims) {
            registry.find(id)
                    .ifPresent(e -> unloadIfIdle(
                            e,
                            "least recently used: --models-max "
                                    + config.lifecycle().limits().maxModels() + ", --models-memory "
                                    + (config.lifecycle().limits().memoryBytes() >> 20) + " MiB"));
        }
    }

    /** The reaper's turn: unloads the idle models whose keep-alive has run out. */
    private void reap() {
        try {
            for (String id : config.lifecycle().limits().expired(residents(null), System.nanoTime())) {
                registry.find(id)
                        .ifPresent(e -> loader.execute(() -> {
                            // checked again on the loader thread: a request may have taken it meanwhile
                            if (config.lifecycle()
                                    .limits()
                                    .expired(residents(null), System.nanoTime())
                                    .contains(id)) {
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
                LOG.info(
                        "loading {}: {}% ({} request(s) waiting)",
                        d.id(), Math.min(100, quarter * 25), entry.waiting());
            }
            return true;
        };
        LoadedModel model = config.backend()
                .load(new ModelLoadParams(d.path(), -1, config.mmap(), false, entry.projector()), progress);
        try {
            // The adapters belong to the model: llama.cpp frees them with it, after the engine's context.
            List<LoraAdapter> adapters = new ArrayList<>();
            for (AdapterFile a : entry.adapters()) {
                adapters.add(model.loadAdapter(a.path()));
            }
            Vocabulary vocab = model.vocabulary();
            ChatTemplate template = entry.template()
                    .provider()
                    .create(
                            entry.template().variant(),
                            new TemplateContext(d, tokenText(vocab, vocab.bos()), tokenText(vocab, vocab.eos())));
            // No slot gets more context than the model was trained for; without -c, what memory holds.
            EngineConfig engineConfig = config.engineConfig();
            ContextSizing.Choice context = ContextSizing.choose(
                    config.contextPolicy(),
                    model.info().trainContext(),
                    ContextSizing.kvBytesPerToken(d.metadata(), engineConfig.kvCacheType()),
                    model.info().sizeBytes(),
                    engineConfig.slots(),
                    engineConfig.kvUnified());
            LOG.info(
                    "context for {}: {} cells, {} per slot ({}: {})",
                    d.id(),
                    context.contextSize(),
                    context.slotContext(),
                    context.source(),
                    context.reason());
            EngineConfig sized = engineConfig.withContext(context.contextSize(), engineConfig.slots());
            PromptCache.Key key = promptCacheKey(d, model.projectorFile(), sized);
            Engine engine = new Engine(d.id(), model, sized, config.promptCache(), key, draftSetup(d));
            LOG.info(
                    "loaded {} in {} ms: {}",
                    d.id(),
                    (System.nanoTime() - start) / 1_000_000,
                    model.info().description());
            long kv = ContextSizing.kvBytesPerToken(d.metadata(), engineConfig.kvCacheType())
                            .orElse(0)
                    * context.contextSize();
            return new ServedModel(d, model, engine, template, entry.template(), context, kv, adapters);
        } catch (RuntimeException e) {
            model.close();
            throw e;
        }
    }

    /**
     * The draft model (loaded now, for this model's engine, which owns it from then on) and the
     * synthetic acceptance this model is served with.
     */
    private DraftSetup draftSetup(ModelDescriptor d) {
        CatalogConfig.DraftModel draft = config.draftModel().orElse(null);
        if (draft == null) {
            return new DraftSetup(null, config.synthetic());
        }
        LOG.info("loading the draft model for {} from {}", d.id(), draft.path());
        LoadedModel model = config.backend()
                .load(new ModelLoadParams(draft.path(), draft.gpuLayers(), config.mmap(), false), LoadProgress.NONE);
        return new DraftSetup(model, config.synthetic());
    }

    /** The key of a model's entries in the prompt cache, after reading its files from disk; null when there is no cache. */
    private PromptCache.Key promptCacheKey(ModelDescriptor d, Optional<Path> projector, EngineConfig sized) {
        if (!config.promptCache().enabled()) {
            return null;
        }
        try {
            PromptCache.Key key = PromptCache.Key.of(d.path(), projector, sized);
            PromptCacheStore store = config.promptCacheStore().orElse(null);
            if (store != null) {
                int loaded = store.load(key);
                LOG.info(
                        "prompt cache: {} entr{} of {} read from {}",
                        loaded,
                        loaded == 1 ? "y" : "ies",
                        d.id(),
                        store.dir());
            }
            return key;
        } catch (IOException e) {
            LOG.warn("no prompt cache for {}: cannot read its model file's identity: {}", d.id(), e.getMessage());
            return null;
        }
    }

    private static String tokenText(Vocabulary vocab, OptionalInt token) {
        return token.isPresent() ? new String(vocab.piece(token.getAsInt(), true), StandardCharsets.UTF_8) : "";
    }

    // ---- Models whose mapped file changed. The watching is ModelFileWatch's; the loader's part is this
    // section and the calls into it: watch a mapped model once loaded, forget it when unloaded, and on a
    // change in place: unload now, answer 503 while the file settles, reload. The package documentation
    // has the lifecycle.

    /** The file watch, made at the first mapped load. */
    private synchronized ModelFileWatch fileWatch() {
        if (fileWatch == null) {
            fileWatch = new ModelFileWatch(
                    new ModelFileWatch.Listener() {
                        @Override
                        public void changedInPlace(ModelEntry entry, String why) {
                            fileChangedInPlace(entry, why);
                        }

                        @Override
                        public void settled(ModelEntry entry) {
                            fileSettled(entry);
                        }
                    },
                    config.fileSettle(),
                    FILE_POLL);
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
        return new ModelUnavailableException(
                entry.id(),
                ModelUnavailableException.Kind.LOADING,
                "the model '" + entry.id() + "' is reloading: " + r.reason() + "; retry shortly");
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

    /**
     * When the entry's model retires (its file changed) and no request holds it any more: frees it,
     * and reloads when settled. The state says {@code retiring} until the weights are freed
     * (unmapped), so that "freed" is never reported early; {@link #freeing} keeps a second caller
     * from freeing it twice meanwhile.
     */
    private void retireIfReleased(ModelEntry entry) {
        ServedModel model;
        synchronized (entry) {
            if (!(entry.state() instanceof ModelState.Reloading r)
                    || r.retiring() == null
                    || entry.users() > 0
                    || !freeing.add(entry)) {
                return;
            }
            model = r.retiring();
        }
        LOG.info("unloading {} (its file changed in place)", entry.id());
        try {
            model.close();
        } catch (RuntimeException e) {
            LOG.warn("unloading {}: {}", entry.id(), e.toString());
        }
        boolean settled;
        synchronized (entry) {
            freeing.remove(entry);
            if (!(entry.state() instanceof ModelState.Reloading r) || r.retiring() != model) {
                return;
            }
            settled = r.settled(); // the file may have settled while the weights were freed
            entry.state(new ModelState.Reloading(r.reason(), null, settled));
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
        for (ModelEntry e : registry.entries()) {
            e.served().ifPresent(ServedModel::close);
            if (e.state() instanceof ModelState.Reloading r && r.retiring() != null && !freeing.contains(e)) {
                r.retiring().close(); // its file changed while a request still held it
            }
            e.state(new ModelState.Unloaded());
        }
        // after the engines: their last saves are written
        config.promptCacheStore().ifPresent(PromptCacheStore::close);
    }
}
