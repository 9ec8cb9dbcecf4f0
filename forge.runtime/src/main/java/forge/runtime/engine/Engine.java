package forge.runtime.engine;

import forge.api.ForgeException;
import forge.api.backend.ContextParams;
import forge.api.backend.InferenceContext;
import forge.api.backend.LoadedModel;
import forge.api.backend.TokenBatch;
import forge.api.backend.TokenLogprobs;
import forge.api.backend.TokenSampler;
import forge.api.backend.Vocabulary;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Continuous batching for one loaded model. See {@code package-info.java} for the design.
 */
public final class Engine implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

    private final String name;
    private final LoadedModel model;
    private final Vocabulary vocab;
    private final EngineConfig config;
    private final LinkedBlockingQueue<Generation> pending;
    private final Thread thread;
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private volatile boolean closing;

    // Engine-thread state below: touched only by the engine thread.
    private InferenceContext context;
    private Slot[] slots;

    /**
     * Creates the engine's context on its own platform thread and waits until it is ready.
     *
     * @throws EngineException when the context cannot be created
     */
    public Engine(String name, LoadedModel model, EngineConfig config) {
        this.name = name;
        this.model = model;
        this.vocab = model.vocabulary();
        this.config = config;
        this.pending = new LinkedBlockingQueue<>();
        this.thread = Thread.ofPlatform().name("forge-engine-" + name).daemon(true).unstarted(this::run);
        thread.start();
        try {
            started.get();
        } catch (ExecutionException e) {
            throw new EngineException(EngineException.Code.UNAVAILABLE,
                    "cannot create the inference context for " + name + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EngineException(EngineException.Code.UNAVAILABLE, "interrupted while starting the engine");
        }
    }

    public EngineConfig config() {
        return config;
    }

    /** The number of requests waiting for a slot. */
    public int queued() {
        return pending.size();
    }

    /**
     * Queues a generation. Refuses it at once, before anything is generated, when it cannot fit
     * the slot's context or the queue is full.
     */
    public Generation submit(GenerationRequest request) {
        int slotCtx = config.slotContext();
        int prompt = request.prompt().length;
        if (prompt >= slotCtx) {
            throw new EngineException(EngineException.Code.CONTEXT_LENGTH_EXCEEDED, "the prompt has " + prompt
                    + " tokens, and this model's context per slot is " + slotCtx + " tokens");
        }
        if (request.maxTokens() > 0 && prompt + request.maxTokens() > slotCtx) {
            throw new EngineException(EngineException.Code.CONTEXT_LENGTH_EXCEEDED, "the prompt (" + prompt
                    + " tokens) plus max_tokens (" + request.maxTokens() + ") exceeds this model's context per slot of "
                    + slotCtx + " tokens");
        }
        if (closing) {
            throw new EngineException(EngineException.Code.UNAVAILABLE, "the engine for " + name + " is shutting down");
        }
        if (pending.size() >= config.queueCapacity() + config.slots()) {
            throw new EngineException(EngineException.Code.QUEUE_FULL, "too many requests are waiting for " + name);
        }
        Generation generation = new Generation(request);
        pending.add(generation);
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

    private void run() {
        try {
            context = model.newContext(new ContextParams(config.contextSize(), config.batchSize(), config.ubatchSize(),
                    config.slots(), config.threads(), config.threadsBatch(), config.flashAttention(),
                    config.kvCacheType(), true, false));
            slots = new Slot[config.slots()];
            for (int i = 0; i < slots.length; i++) {
                slots[i] = new Slot(i);
            }
        } catch (RuntimeException | Error e) {
            started.completeExceptionally(e);
            return;
        }
        started.complete(null);
        LOG.info("engine {} ready: {} slot(s) of {} tokens, batch {}, {} threads", name, slots.length,
                config.slotContext(), config.batchSize(), config.threads());
        try {
            while (!closing) {
                admit();
                if (!anyActive()) {
                    if (pending.isEmpty()) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                    }
                    continue;
                }
                step();
            }
        } catch (RuntimeException | Error e) {
            LOG.error("engine {} failed", name, e);
            failAll(new ForgeException("the engine for " + name + " failed: " + e.getMessage(), e));
        } finally {
            shutdown();
        }
    }

    /** Moves waiting generations into free slots. */
    private void admit() {
        for (Slot slot : slots) {
            if (slot.generation != null) {
                continue;
            }
            Generation next;
            while ((next = pending.poll()) != null && next.cancelled()) {
                next.emit(new GenerationEvent.Done(FinishReason.CANCELLED, new Timings(0, next.request().prompt().length, 0, 0, 0, 0, 0)));
            }
            if (next == null) {
                return;
            }
            try {
                slot.start(next);
            } catch (ForgeException | IllegalArgumentException e) {
                slot.release();
                next.emit(new GenerationEvent.Failed(e instanceof ForgeException f ? f : new ForgeException(e.getMessage(), e)));
            }
        }
    }

    private boolean anyActive() {
        for (Slot slot : slots) {
            if (slot.generation != null) {
                return true;
            }
        }
        return false;
    }

    /** One decode for every active slot: their next tokens plus as much pending prefill as fits. */
    private void step() {
        TokenBatch batch = context.batch();
        batch.clear();
        for (Slot slot : slots) {
            if (slot.generation != null && slot.generation.cancelled()) {
                slot.finish(FinishReason.CANCELLED);
            }
        }
        for (Slot slot : slots) {
            slot.batchIndex = -1;
            slot.inBatch = false;
            if (slot.generation != null && slot.decoding) {
                slot.batchIndex = batch.add(slot.lastToken, slot.position, slot.id, true);
                slot.position++;
                slot.inBatch = true;
            }
        }
        // Prefill in chunks, so decoding sequences keep moving while a long prompt is read.
        for (Slot slot : slots) {
            if (slot.generation == null || slot.decoding) {
                continue;
            }
            int[] prompt = slot.generation.request().prompt();
            while (slot.prefilled < prompt.length && batch.size() < batch.capacity()) {
                boolean last = slot.prefilled == prompt.length - 1;
                int index = batch.add(prompt[slot.prefilled], slot.position, slot.id, last);
                slot.inBatch = true;
                slot.prefilled++;
                slot.position++;
                if (last) {
                    slot.batchIndex = index;
                }
            }
        }
        if (batch.size() == 0) {
            return;
        }
        try {
            context.decode();
        } catch (ForgeException e) {
            LOG.warn("decode failed for {} sequence(s): {}", batch.size(), e.getMessage());
            for (Slot slot : slots) {
                if (slot.generation != null && slot.inBatch) {
                    slot.fail(e);
                }
            }
            return;
        }
        long now = System.nanoTime();
        for (Slot slot : slots) {
            if (slot.generation != null && slot.batchIndex >= 0) {
                slot.onLogits(now);
            }
        }
    }

    private void failAll(ForgeException error) {
        if (slots != null) {
            for (Slot slot : slots) {
                if (slot.generation != null) {
                    slot.fail(error);
                }
            }
        }
        Generation g;
        while ((g = pending.poll()) != null) {
            g.emit(new GenerationEvent.Failed(error));
        }
    }

    private void shutdown() {
        failAll(new EngineException(EngineException.Code.UNAVAILABLE, "the engine for " + name + " was shut down"));
        if (context != null) {
            context.close();
        }
        LOG.debug("engine {} stopped", name);
    }

    /** One sequence id of the shared context, and the generation it is running. Engine thread only. */
    private final class Slot {
        final int id;
        Generation generation;
        TokenSampler sampler;
        Utf8Accumulator utf8;
        StopMatcher stops;
        boolean decoding;
        int prefilled;
        int position;
        int lastToken;
        int batchIndex = -1;
        int generated;
        int limit;
        long startNanos;
        long firstTokenNanos;
        boolean inBatch;
        /** Log-probabilities of tokens not yet emitted; null when the generation did not ask (no cost). */
        List<TokenLogprob> logprobs;

        Slot(int id) {
            this.id = id;
        }

        void start(Generation g) {
            generation = g;
            GenerationRequest r = g.request();
            context.removeTokens(id, 0, -1);
            sampler = context.sampler(r.sampling());
            utf8 = new Utf8Accumulator();
            stops = new StopMatcher(r.stops());
            decoding = false;
            prefilled = 0;
            position = 0;
            generated = 0;
            int room = config.slotContext() - r.prompt().length;
            limit = r.maxTokens() > 0 ? Math.min(r.maxTokens(), room) : room;
            startNanos = System.nanoTime();
            firstTokenNanos = 0;
            logprobs = r.logprobs() >= 0 ? new ArrayList<>() : null;
        }

        /** The logits of this slot's last batch token are ready: sample, emit, maybe finish. */
        void onLogits(long now) {
            if (!decoding) {
                decoding = true; // the whole prompt is in: from now on, one token per step
            }
            int token = sampler.sample(batchIndex);
            generated++;
            if (firstTokenNanos == 0) {
                firstTokenNanos = now;
            }
            GenerationRequest r = generation.request();
            boolean endOfGeneration = vocab.isEndOfGeneration(token) || r.stopTokens().contains(token);
            if (endOfGeneration && !r.ignoreEos()) {
                generated--; // the end token is not part of the completion
                finish(FinishReason.STOP);
                return;
            }
            if (logprobs != null && !recordLogprobs(token, r.logprobs())) {
                return;
            }
            String text = stops.push(utf8.push(vocab.piece(token, false)));
            if (!text.isEmpty()) {
                generation.emit(new GenerationEvent.Text(text, 1, drainLogprobs()));
            }
            if (stops.stopped()) {
                finish(FinishReason.STOP);
                return;
            }
            if (generated >= limit) {
                finish(FinishReason.LENGTH);
                return;
            }
            lastToken = token;
        }

        /** Adds the sampled token's log-probabilities; false when the backend failed and the slot with it. */
        boolean recordLogprobs(int token, int top) {
            TokenLogprobs lp;
            try {
                lp = context.logprobs(batchIndex, token, top);
            } catch (ForgeException | UnsupportedOperationException e) {
                // This request's failure, not the engine's: the other slots keep going.
                fail(e instanceof ForgeException f ? f : new ForgeException(e.getMessage(), e));
                return false;
            }
            List<TokenLogprob> alternatives = new ArrayList<>(lp.top().size());
            for (TokenLogprobs.Candidate c : lp.top()) {
                alternatives.add(new TokenLogprob(vocab.piece(c.id(), true), c.logprob(), List.of()));
            }
            logprobs.add(new TokenLogprob(vocab.piece(token, true), lp.token().logprob(), alternatives));
            return true;
        }

        private List<TokenLogprob> drainLogprobs() {
            if (logprobs == null || logprobs.isEmpty()) {
                return List.of();
            }
            List<TokenLogprob> out = List.copyOf(logprobs);
            logprobs.clear();
            return out;
        }

        void finish(FinishReason reason) {
            if (reason != FinishReason.CANCELLED) {
                String rest = stops.push(utf8.flush());
                rest += stops.flush();
                if (!rest.isEmpty()) {
                    generation.emit(new GenerationEvent.Text(rest, 0, drainLogprobs()));
                }
            }
            long end = System.nanoTime();
            int promptTokens = generation.request().prompt().length;
            double queueMs = (startNanos - generation.submittedNanos()) / 1e6;
            double promptMs = firstTokenNanos > 0 ? (firstTokenNanos - startNanos) / 1e6 : (end - startNanos) / 1e6;
            double ttftMs = firstTokenNanos > 0 ? (firstTokenNanos - generation.submittedNanos()) / 1e6 : 0;
            double decodeMs = firstTokenNanos > 0 ? (end - firstTokenNanos) / 1e6 : 0;
            generation.emit(new GenerationEvent.Done(reason,
                    new Timings(queueMs, promptTokens, 0, promptMs, ttftMs, Math.max(0, generated), decodeMs)));
            release();
        }

        void fail(ForgeException error) {
            generation.emit(new GenerationEvent.Failed(error));
            context.removeTokens(id, 0, -1);
            release();
        }

        void release() {
            if (sampler != null) {
                sampler.close();
                sampler = null;
            }
            generation = null;
            decoding = false;
            batchIndex = -1;
            logprobs = null;
        }
    }
}
