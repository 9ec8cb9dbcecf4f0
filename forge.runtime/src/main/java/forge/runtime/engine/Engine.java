package forge.runtime.engine;

import forge.api.ForgeException;
import forge.api.backend.ContextParams;
import forge.api.backend.InferenceContext;
import forge.api.backend.LoadedModel;
import forge.api.backend.LoraAdapter;
import forge.api.backend.TokenBatch;
import forge.api.backend.Vocabulary;
import java.util.HashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Continuous batching for one loaded model: the engine thread, which owns the context, and the
 * queue through which requests reach it. The thread admits queued requests into free slots and
 * runs the {@code Scheduler}'s steps while any is active; it publishes the scheduler's snapshots
 * and lets the context idle when there is nothing to do. See {@code package-info.java} for the
 * design.
 */
public final class Engine implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

    private final String name;
    private final LoadedModel model;
    private final Vocabulary vocab;
    private final EngineConfig config;
    private final PromptCache cache;
    private final PromptCache.Key cacheKey;
    private final DraftSetup draft;
    private final LinkedBlockingQueue<Generation> pending;
    private final Thread thread;
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private volatile boolean closing;
    /** Why the engine gave up (its context could not be recreated); new requests are refused from then on. */
    private volatile ForgeException failure;
    /** Running, failed (recreating its context, or given up) or closed. Written by the engine thread. */
    private volatile EngineHealth health = EngineHealth.running(0);

    /** Attempts at recreating a failed context, each after a longer pause, before the engine gives up. */
    static final int MAX_RECREATE_ATTEMPTS = 3;

    static final long RECREATE_BACKOFF_MS = 200;
    /** Failures over an engine's life it recovers from; past this it stays failed (a context that keeps failing). */
    static final int MAX_RESTARTS = 10;
    /** Set before the engine thread drains its queue for the last time. */
    private volatile boolean stopped;

    /** How often a running engine republishes its snapshot besides state changes. */
    static final long SNAPSHOT_INTERVAL_MS = 100;

    private volatile EngineSnapshot snapshot = EngineSnapshot.empty();

    // Engine-thread state below: touched only by the engine thread.
    private InferenceContext context;
    private Drafter drafter;
    private Scheduler scheduler;
    private long lastSnapshotNanos;

    /**
     * Creates the engine's context on its own platform thread and waits until it is ready.
     *
     * @throws EngineException when the context cannot be created
     */
    public Engine(String name, LoadedModel model, EngineConfig config) {
        this(name, model, config, PromptCache.OFF, null);
    }

    /**
     * An engine whose slots save their states into {@code cache} before their cells are replaced,
     * and restore a request's longest cached prefix from it.
     *
     * @param cacheKey the model file and settings this engine's states are kept under; null for no host cache
     * @throws EngineException when the context cannot be created
     */
    public Engine(String name, LoadedModel model, EngineConfig config, PromptCache cache, PromptCache.Key cacheKey) {
        this(name, model, config, cache, cacheKey, DraftSetup.NONE);
    }

    /**
     * An engine that also drafts with {@code draft}'s model, in a context of its own with one
     * sequence per slot, and owns that model from now on (it closes it when it stops, or here when
     * it refuses it).
     *
     * @throws EngineException {@code UNAVAILABLE} when the draft model's vocabulary is not
     *                         compatible with the target's, or the settings ask for a draft model
     *                         and none is given, or when a context cannot be created
     */
    public Engine(
            String name,
            LoadedModel model,
            EngineConfig config,
            PromptCache cache,
            PromptCache.Key cacheKey,
            DraftSetup draft) {
        this.draft = Objects.requireNonNull(draft, "draft");
        if (draft.model() != null) {
            Optional<String> why;
            try {
                why = Drafter.incompatibility(model.vocabulary(), draft.model().vocabulary());
            } catch (RuntimeException e) {
                draft.model().close();
                throw e;
            }
            if (why.isPresent()) {
                draft.model().close();
                throw new EngineException(
                        EngineException.Code.UNAVAILABLE,
                        "the draft model cannot draft for " + name + ": " + why.get()
                                + " (llama-server refuses it too: the vocabularies must match)");
            }
        } else if (config.speculation().model()) {
            throw new EngineException(
                    EngineException.Code.UNAVAILABLE, "speculation with a draft model needs one (--model-draft)");
        }
        this.cache = Objects.requireNonNull(cache, "cache");
        this.cacheKey = cacheKey;
        this.name = name;
        this.model = model;
        this.vocab = model.vocabulary();
        this.config = config;
        this.pending = new LinkedBlockingQueue<>();
        this.thread =
                Thread.ofPlatform().name("forge-engine-" + name).daemon(true).unstarted(this::run);
        thread.start();
        try {
            started.get();
        } catch (ExecutionException e) {
            throw new EngineException(
                    EngineException.Code.UNAVAILABLE,
                    "cannot create the inference context for " + name + ": "
                            + e.getCause().getMessage(),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EngineException(EngineException.Code.UNAVAILABLE, "interrupted while starting the engine");
        }
    }

    public EngineConfig config() {
        return config;
    }

    /** The host prompt cache its slots save into ({@link PromptCache#OFF} when none). */
    public PromptCache promptCache() {
        return cacheKey == null ? PromptCache.OFF : cache;
    }

    /**
     * The slots and counters as the engine thread last published them: read without a lock, so it
     * may lag a running step by up to {@value #SNAPSHOT_INTERVAL_MS} ms; it is current whenever a
     * generation's final event has been delivered.
     */
    public EngineSnapshot snapshot() {
        return snapshot;
    }

    /** The model this engine runs. */
    public LoadedModel model() {
        return model;
    }

    /** Running, failed or closed, and why. */
    public EngineHealth health() {
        return health;
    }

    /** The number of requests waiting for a slot. */
    public int queued() {
        return pending.size();
    }

    /** The LoRA adapters the requests waiting for a slot apply (vLLM's {@code waiting_lora_adapters}). */
    public Set<LoraAdapter> waitingAdapters() {
        Set<LoraAdapter> adapters = new HashSet<>();
        for (Generation g : pending) { // weakly consistent: a scrape's view, no lock
            g.request().adapters().forEach(a -> adapters.add(a.adapter()));
        }
        return adapters;
    }

    /**
     * Queues a generation. Refuses it at once, before anything is generated, when it cannot fit
     * the slot's context or the queue is full.
     */
    public Generation submit(GenerationRequest request) {
        int slotCtx = config.slotContext();
        // In one pool a request may fill all of it when the others leave it room: only more than all is refused here.
        String perSlot = config.kvUnified() ? "context (one KV pool for all slots)" : "context per slot";
        int prompt = request.prompt().length;
        if (prompt >= slotCtx) {
            throw new EngineException(
                    EngineException.Code.CONTEXT_LENGTH_EXCEEDED,
                    "the prompt has " + prompt + " tokens, and this model's " + perSlot + " is " + slotCtx + " tokens");
        }
        if (request.maxTokens() > 0 && prompt + request.maxTokens() > slotCtx) {
            throw new EngineException(
                    EngineException.Code.CONTEXT_LENGTH_EXCEEDED,
                    "the prompt (" + prompt
                            + " tokens) plus max_tokens (" + request.maxTokens()
                            + ") exceeds this model's " + perSlot + " of "
                            + slotCtx + " tokens");
        }
        for (int token : request.sampling().logitBias().keySet()) {
            if (token < 0 || token >= vocab.size()) {
                throw new EngineException(
                        EngineException.Code.INVALID_LOGIT_BIAS,
                        "logit_bias names token " + token + ", which is not a token id of this model (0 to "
                                + (vocab.size() - 1) + ")");
            }
        }
        if (closing) {
            throw new EngineException(EngineException.Code.UNAVAILABLE, "the engine for " + name + " is shutting down");
        }
        ForgeException failed = failure;
        if (failed != null) {
            throw new EngineException(EngineException.Code.UNAVAILABLE, failed.getMessage(), failed);
        }
        EngineHealth now = health;
        if (now.state() != EngineHealth.State.RUNNING) {
            throw new EngineException(
                    EngineException.Code.UNAVAILABLE,
                    "the engine for " + name + " is recreating its context after a failure (" + now.reason()
                            + "); retry shortly");
        }
        if (pending.size() >= config.queueCapacity() + config.slots()) {
            throw new EngineException(EngineException.Code.QUEUE_FULL, "too many requests are waiting for " + name);
        }
        Generation generation = new Generation(request);
        pending.add(generation);
        if ((stopped || failure != null || health.state() != EngineHealth.State.RUNNING)
                && pending.remove(generation)) {
            // The engine thread drained its queue (to stop, or to recreate its context) while this was added.
            ForgeException why = failure;
            generation.emit(new GenerationEvent.Failed(new EngineException(
                    EngineException.Code.UNAVAILABLE,
                    why != null ? why.getMessage() : "the engine for " + name + " is not running; retry shortly",
                    why)));
        }
        LockSupport.unpark(thread);
        return generation;
    }

    @Override
    public void close() {
        closing = true;
        LockSupport.unpark(thread);
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- engine thread

    /** This engine's threads, counted by the process's compute gate while its context lives. */
    private ComputeGate.Entry gate;
    /** Whether the engine decoded since it last told the context it is idle. Engine thread only. */
    private boolean busy = true; // the warmup decoded

    private void run() {
        try {
            createContext();
        } catch (RuntimeException | Error e) {
            closeContext();
            closeDraftModel();
            started.completeExceptionally(e);
            return;
        }
        started.complete(null);
        LOG.info(
                "engine {} ready: {} slot(s) of {} tokens{}, batch {}/{}, {} threads, flash attention {}, KV {} (profile {})",
                name,
                scheduler.slots(),
                config.slotContext(),
                config.kvUnified() ? " in one shared KV pool" : " each",
                config.batchSize(),
                config.ubatchSize(),
                config.threads(),
                config.flashAttention(),
                config.kvCacheType(),
                config.profile());
        try {
            while (!closing) {
                try {
                    serve();
                } catch (RuntimeException | Error e) {
                    if (closing) {
                        break;
                    }
                    // The context itself failed (a bug, a native error reported as an exception, memory):
                    // every request on it fails now, and a new context is made for what comes next.
                    ForgeException error =
                            new ForgeException("the engine for " + name + " failed: " + e.getMessage(), e);
                    health = new EngineHealth(EngineHealth.State.FAILED, error.getMessage(), true, health.restarts());
                    LOG.error("engine {} failed; failing its requests and recreating its context", name, e);
                    failAll(error);
                    if (!recreate()) {
                        failure = error;
                        health = new EngineHealth(
                                EngineHealth.State.FAILED, error.getMessage(), false, health.restarts());
                        LOG.error(
                                "engine {} gave up: its context could not be recreated; it refuses requests from now on",
                                name);
                        failAll(error);
                        break;
                    }
                }
            }
        } finally {
            shutdown();
        }
    }

    /** Makes the context, its scheduler and (when configured) warms it up. Engine thread only. */
    private void createContext() {
        context = model.newContext(contextParams());
        gate = ComputeGate.PROCESS.enter(Math.max(config.threads(), config.threadsBatch()));
        scheduler = new Scheduler(
                        context,
                        vocab,
                        config.slots(),
                        config.slotContext(),
                        ComputeGate.PROCESS,
                        this::published,
                        cache,
                        cacheKey)
                .speculation(config.speculation())
                .synthetic(draft.synthetic())
                .pool(config.kvUnified() ? config.contextSize() : 0);
        if (draft.model() != null) {
            InferenceContext draftContext = draft.model().newContext(contextParams());
            try {
                drafter = new Drafter(draftContext, ComputeGate.PROCESS, config.slots(), config.slotContext());
            } catch (RuntimeException | Error e) {
                draftContext.close();
                throw e;
            }
            scheduler.drafter(drafter);
        }
        if (config.warmup()) {
            warmup();
        }
        busy = true;
        scheduler.publish();
    }

    /** The context the configuration asks for: the model's and its draft model's are made alike. */
    private ContextParams contextParams() {
        return new ContextParams(
                config.contextSize(),
                config.batchSize(),
                config.ubatchSize(),
                config.slots(),
                config.threads(),
                config.threadsBatch(),
                config.flashAttention(),
                config.kvCacheType(),
                config.kvUnified(),
                false);
    }

    /** Runs {@code close}; a failure is logged as {@code failed}, not thrown: the engine goes on without what it closed. */
    private void closeLogging(Runnable close, String failed) {
        try {
            close.run();
        } catch (RuntimeException | Error e) {
            LOG.warn("engine {}: {}: {}", name, failed, e.toString());
        }
    }

    private void closeContext() {
        if (drafter != null) {
            closeLogging(drafter::close, "closing its draft context failed");
            drafter = null;
        }
        if (context != null) {
            closeLogging(context::close, "closing its failed context failed too");
            context = null;
        }
        if (gate != null) {
            gate.close();
            gate = null;
        }
    }

    /**
     * Replaces a failed context: up to {@value #MAX_RECREATE_ATTEMPTS} attempts, each after a longer
     * pause, and at most {@value #MAX_RESTARTS} recoveries over the engine's life.
     *
     * @return whether the engine runs again
     */
    private boolean recreate() {
        closeContext();
        if (health.restarts() >= MAX_RESTARTS) {
            return false;
        }
        for (int attempt = 1; attempt <= MAX_RECREATE_ATTEMPTS && !closing; attempt++) {
            try {
                Thread.sleep(RECREATE_BACKOFF_MS * attempt);
            } catch (InterruptedException e) {
                return false; // close() interrupts: the engine is going away
            }
            try {
                createContext();
                health = EngineHealth.running(health.restarts() + 1);
                LOG.info("engine {} recreated its context (attempt {}, restart {})", name, attempt, health.restarts());
                return true;
            } catch (RuntimeException | Error e) {
                LOG.warn(
                        "engine {}: recreating its context failed (attempt {} of {}): {}",
                        name,
                        attempt,
                        MAX_RECREATE_ATTEMPTS,
                        e.toString());
                closeContext();
            }
        }
        return false;
    }

    /** Admits and steps until the engine closes; throws what its context throws. Engine thread only. */
    private void serve() {
        while (!closing) {
            admit();
            if (!scheduler.anyActive()) {
                if (pending.isEmpty()) {
                    if (busy) {
                        // Nothing to decode: let the backend's threads sleep instead of polling.
                        context.idle();
                        scheduler.idle();
                        busy = false;
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                }
                continue;
            }
            busy = true;
            scheduler.step();
            long now = System.nanoTime();
            if (now - lastSnapshotNanos > TimeUnit.MILLISECONDS.toNanos(SNAPSHOT_INTERVAL_MS)) {
                scheduler.publish();
            }
        }
    }

    /** Takes a snapshot the scheduler published. Engine thread only. */
    private void published(EngineSnapshot next) {
        lastSnapshotNanos = System.nanoTime();
        snapshot = next;
    }

    /**
     * Like llama-server's warmup: one decode of BOS and EOS, then forget it, so that the first
     * request does not pay for lazy allocations and kernel loading.
     */
    private void warmup() {
        long t0 = System.nanoTime();
        TokenBatch batch = context.batch();
        batch.clear();
        int pos = 0;
        if (vocab.bos().isPresent()) {
            batch.add(vocab.bos().getAsInt(), pos++, 0, false);
        }
        if (vocab.eos().isPresent()) {
            batch.add(vocab.eos().getAsInt(), pos++, 0, false);
        }
        if (pos == 0) {
            batch.add(0, pos, 0, false);
        }
        ComputeGate.PROCESS.decode(context);
        context.clearMemory();
        batch.clear();
        LOG.debug("engine {} warmed up in {} ms", name, (System.nanoTime() - t0) / 1_000_000);
    }

    /** Moves waiting generations into free slots; one cancelled while it waited ends here, having cost nothing. */
    private void admit() {
        while (scheduler.anyFree()) {
            Generation next;
            while ((next = pending.poll()) != null && next.cancelled()) {
                next.emit(new GenerationEvent.Done(
                        FinishReason.CANCELLED, new Timings(0, next.request().prompt().length, 0, 0, 0, 0, 0, 0, 0)));
            }
            if (next == null) {
                return;
            }
            scheduler.start(next);
        }
    }

    /** Frees the draft model's weights, once its context is closed. */
    private void closeDraftModel() {
        if (draft.model() != null) {
            closeLogging(draft.model()::close, "closing its draft model failed");
        }
    }

    /** llama-server's name of what requests that name none speculate with ({@code /props}). */
    public String speculationType() {
        return config.speculation().type();
    }

    /** Whether this engine has a draft model: a request's {@code speculative.*} sizes then apply to it. */
    public boolean hasDraftModel() {
        return draft.model() != null;
    }

    private void failAll(ForgeException error) {
        if (scheduler != null) {
            scheduler.failAll(error);
        }
        Generation g;
        while ((g = pending.poll()) != null) {
            g.emit(new GenerationEvent.Failed(error));
        }
    }

    private void shutdown() {
        stopped = true;
        failAll(new EngineException(EngineException.Code.UNAVAILABLE, "the engine for " + name + " was shut down"));
        if (failure == null && scheduler != null && context != null) {
            try {
                scheduler.saveAll();
            } catch (RuntimeException e) {
                LOG.warn("engine {}: could not save its slots to the prompt cache: {}", name, e.toString());
            }
        }
        closeContext();
        closeDraftModel();
        if (failure == null) {
            health = new EngineHealth(EngineHealth.State.CLOSED, "", false, health.restarts());
        }
        LOG.debug("engine {} stopped", name);
    }
}
