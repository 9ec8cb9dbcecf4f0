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
    /** Why the engine thread ended, if it did on its own; new requests are refused from then on. */
    private volatile ForgeException failure;
    /** Set before the engine thread drains its queue for the last time. */
    private volatile boolean stopped;

    /** How often a running engine republishes its snapshot besides state changes. */
    static final long SNAPSHOT_INTERVAL_MS = 100;

    private volatile EngineSnapshot snapshot = new EngineSnapshot(java.util.List.of(), 0, 0, 0, 0, 0, 0);

    // Engine-thread state below: touched only by the engine thread.
    private InferenceContext context;
    private Slot[] slots;
    private long prefilledTokens;
    private long reusedTokens;
    private long prefixCopies;
    private long prefixWaits;
    private long lastSnapshotNanos;
    private long useClock;

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
        for (int token : request.sampling().logitBias().keySet()) {
            if (token < 0 || token >= vocab.size()) {
                throw new EngineException(EngineException.Code.INVALID_LOGIT_BIAS, "logit_bias names token " + token
                        + ", which is not a token id of this model (0 to " + (vocab.size() - 1) + ")");
            }
        }
        if (closing) {
            throw new EngineException(EngineException.Code.UNAVAILABLE, "the engine for " + name + " is shutting down");
        }
        ForgeException failed = failure;
        if (failed != null) {
            throw new EngineException(EngineException.Code.UNAVAILABLE, failed.getMessage(), failed);
        }
        if (pending.size() >= config.queueCapacity() + config.slots()) {
            throw new EngineException(EngineException.Code.QUEUE_FULL, "too many requests are waiting for " + name);
        }
        Generation generation = new Generation(request);
        pending.add(generation);
        if ((stopped || failure != null) && pending.remove(generation)) {
            // The engine thread drained its queue for the last time while this was being added.
            ForgeException why = failure;
            generation.emit(new GenerationEvent.Failed(new EngineException(EngineException.Code.UNAVAILABLE,
                    why != null ? why.getMessage() : "the engine for " + name + " was shut down", why)));
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
            context = model.newContext(new ContextParams(config.contextSize(), config.batchSize(), config.ubatchSize(),
                    config.slots(), config.threads(), config.threadsBatch(), config.flashAttention(),
                    config.kvCacheType(), false, false));
            gate = ComputeGate.PROCESS.enter(Math.max(config.threads(), config.threadsBatch()));
            slots = new Slot[config.slots()];
            for (int i = 0; i < slots.length; i++) {
                slots[i] = new Slot(i, config.slotContext());
            }
            if (config.warmup()) {
                warmup();
            }
            publish();
        } catch (RuntimeException | Error e) {
            if (context != null) {
                context.close();
            }
            if (gate != null) {
                gate.close();
            }
            started.completeExceptionally(e);
            return;
        }
        started.complete(null);
        LOG.info("engine {} ready: {} slot(s) of {} tokens, batch {}/{}, {} threads, flash attention {}, KV {} (profile {})",
                name, slots.length, config.slotContext(), config.batchSize(), config.ubatchSize(), config.threads(),
                config.flashAttention(), config.kvCacheType(), config.profile());
        try {
            while (!closing) {
                admit();
                if (!anyActive()) {
                    if (pending.isEmpty()) {
                        if (busy) {
                            // Nothing to decode: let the backend's threads sleep instead of polling.
                            context.idle();
                            busy = false;
                        }
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                    }
                    continue;
                }
                busy = true;
                step();
                long now = System.nanoTime();
                if (now - lastSnapshotNanos > TimeUnit.MILLISECONDS.toNanos(SNAPSHOT_INTERVAL_MS)) {
                    publish();
                }
            }
        } catch (RuntimeException | Error e) {
            LOG.error("engine {} failed", name, e);
            failure = new ForgeException("the engine for " + name + " failed: " + e.getMessage(), e);
            failAll(failure);
        } finally {
            shutdown();
        }
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

    /** Moves waiting generations into free slots, choosing for each the slot that caches most of its prompt. */
    private void admit() {
        while (true) {
            if (!anyFree()) {
                return;
            }
            Generation next;
            while ((next = pending.poll()) != null && next.cancelled()) {
                next.emit(new GenerationEvent.Done(FinishReason.CANCELLED, new Timings(0, next.request().prompt().length, 0, 0, 0, 0, 0)));
            }
            if (next == null) {
                return;
            }
            Slot slot = chooseSlot(next.request().prompt());
            try {
                slot.start(next);
                slot.acquirePrefix(true);
            } catch (ForgeException | IllegalArgumentException e) {
                slot.fail(e instanceof ForgeException f ? f : new ForgeException(e.getMessage(), e));
            }
            publish();
        }
    }

    private boolean anyFree() {
        for (Slot slot : slots) {
            if (slot.generation == null) {
                return true;
            }
        }
        return false;
    }

    /**
     * The free slot whose cached tokens share the longest prefix with the prompt; among equals,
     * the least recently used, so that other caches live longer.
     */
    private Slot chooseSlot(int[] prompt) {
        Slot best = null;
        int bestPrefix = -1;
        for (Slot slot : slots) {
            if (slot.generation != null) {
                continue;
            }
            int prefix = commonPrefix(slot.tokens, slot.cached, prompt, prompt.length);
            if (prefix > bestPrefix || (prefix == bestPrefix && slot.lastUsed < best.lastUsed)) {
                best = slot;
                bestPrefix = prefix;
            }
        }
        return best;
    }

    /**
     * Whether a request should wait for another slot that is prefilling a prompt sharing
     * {@code gain} more tokens with it than any cache holds, while {@code leaderRemaining} of that
     * prompt are still to compute. Waiting delays the request by the leader's prefill; not waiting
     * computes the {@code gain} tokens twice, in a batch every active slot waits for. So: wait when
     * the gain is at least half of what the leader still computes. Measured on the bench model: an
     * 800-token shared system prompt (gain ~800) waits, editor requests whose prompts share only a
     * few tokens beyond what every slot already caches (gain ~2) do not, which had cost them a
     * whole step (TTFT p50 817 ms against llama-server's 468 ms with 8 clients).
     */
    static boolean worthWaiting(int gain, int leaderRemaining) {
        return gain > 0 && 2L * gain >= leaderRemaining;
    }

    static int commonPrefix(int[] a, int aLength, int[] b, int bLength) {
        int n = Math.min(aLength, bLength);
        int i = 0;
        while (i < n && a[i] == b[i]) {
            i++;
        }
        return i;
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
        boolean changed = false;
        for (Slot slot : slots) {
            if (slot.generation != null && slot.generation.cancelled()) {
                slot.finish(FinishReason.CANCELLED);
                changed = true;
            }
        }
        // Slots waiting for another slot's prefix: go on once it is computed, or its slot moved on.
        for (Slot slot : slots) {
            if (slot.generation != null && slot.leader != null && !slot.stillWaiting()) {
                slot.leader = null;
                try {
                    slot.acquirePrefix(false);
                } catch (ForgeException e) {
                    slot.fail(e);
                }
                changed = true;
            }
        }
        for (Slot slot : slots) {
            slot.batchIndex = -1;
            slot.inBatch = false;
            if (slot.generation != null && slot.decoding) {
                slot.tokens[slot.position] = slot.lastToken;
                slot.batchIndex = batch.add(slot.lastToken, slot.position, slot.id, true);
                slot.position++;
                slot.inBatch = true;
            }
        }
        // Prefill in chunks, so decoding sequences keep moving while a long prompt is read.
        for (Slot slot : slots) {
            if (slot.generation == null || slot.decoding || slot.leader != null) {
                continue;
            }
            int[] prompt = slot.generation.request().prompt();
            boolean scoring = slot.promptScores != null;
            while (slot.prefilled < prompt.length && batch.size() < batch.capacity()) {
                boolean last = slot.prefilled == prompt.length - 1;
                int token = prompt[slot.prefilled];
                slot.tokens[slot.position] = token;
                int index = batch.add(token, slot.position, slot.id, last || scoring);
                if (scoring && slot.scoreCount++ == 0) {
                    slot.scoreIndex = index;
                    slot.scorePosition = slot.position;
                }
                slot.inBatch = true;
                slot.prefilled++;
                slot.position++;
                prefilledTokens++;
                if (last) {
                    slot.batchIndex = index;
                }
            }
        }
        if (batch.size() == 0) {
            if (changed) {
                publish();
            }
            return;
        }
        try {
            ComputeGate.PROCESS.decode(context);
        } catch (ForgeException e) {
            LOG.warn("decode failed for {} sequence(s): {}", batch.size(), e.getMessage());
            for (Slot slot : slots) {
                if (slot.generation != null && slot.inBatch) {
                    slot.fail(e);
                }
            }
            publish();
            return;
        }
        long now = System.nanoTime();
        for (Slot slot : slots) {
            if (slot.inBatch) {
                slot.cached = slot.position; // what this step computed is in the KV cache now
            }
        }
        for (Slot slot : slots) {
            if (slot.generation != null && slot.scoreCount > 0) {
                slot.scorePromptTokens();
            }
        }
        for (Slot slot : slots) {
            if (slot.generation != null && slot.batchIndex >= 0) {
                try {
                    slot.onLogits(now);
                } catch (RuntimeException e) {
                    // This sequence's sampler, grammar or stop rule failed: its request ends, the others go on.
                    LOG.warn("request {} failed while sampling: {}", slot.generation.request().id(), e.getMessage());
                    slot.fail(e instanceof ForgeException f ? f : new ForgeException("sampling failed: " + e.getMessage(), e));
                }
            }
        }
        if (changed) {
            publish();
        }
    }

    /** Publishes a new snapshot for readers on other threads. Engine thread only. */
    private void publish() {
        lastSnapshotNanos = System.nanoTime();
        SlotSnapshot[] views = new SlotSnapshot[slots.length];
        for (Slot s : slots) {
            SlotState state = s.generation == null ? SlotState.IDLE : s.decoding ? SlotState.DECODE : SlotState.PREFILL;
            views[s.id] = new SlotSnapshot(s.id, state, s.cached, s.generation == null ? "" : s.generation.request().id(),
                    s.generation == null ? 0 : s.generation.request().prompt().length, s.generation == null ? 0 : s.reused,
                    s.generation == null ? 0 : s.generated);
        }
        snapshot = new EngineSnapshot(java.util.List.of(views), prefilledTokens, reusedTokens, prefixCopies, prefixWaits,
                cellsUsed(), context.contextSize());
    }

    /**
     * KV cells held by all slots. Each slot has its own KV stream, so a prefix copied from another
     * slot is held by both: the cells are the sum of what the slots cache.
     */
    private int cellsUsed() {
        int cells = 0;
        for (Slot slot : slots) {
            cells += slot.cached;
        }
        return cells;
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
        stopped = true;
        failAll(new EngineException(EngineException.Code.UNAVAILABLE, "the engine for " + name + " was shut down"));
        if (context != null) {
            context.close();
        }
        if (gate != null) {
            gate.close();
        }
        LOG.debug("engine {} stopped", name);
    }

    /**
     * One sequence id of the shared context, the tokens its KV cells hold, and the generation it is
     * running. Engine thread only.
     */
    private final class Slot {
        final int id;
        /** {@code tokens[p]} is the token at position {@code p} of this sequence; valid below {@link #cached}. */
        final int[] tokens;
        /** Positions {@code [0, cached)} of this sequence are in the KV cache; kept after a request ends. */
        int cached;
        long lastUsed;
        Generation generation;
        /** A slot computing a prefix this one shares: wait for it rather than compute it twice. */
        Slot leader;
        Generation leaderGeneration;
        int awaited;
        TokenSampler sampler;
        Utf8Accumulator utf8;
        StopMatcher stops;
        boolean decoding;
        int prefilled;
        int position;
        int lastToken;
        int batchIndex = -1;
        int generated;
        int reused;
        int limit;
        long startNanos;
        long firstTokenNanos;
        boolean inBatch;
        /** Log-probabilities of tokens not yet emitted; null when the generation did not ask (no cost). */
        List<TokenLogprob> logprobs;
        /** The prompt's log-probabilities so far, for a generation that scores its prompt; else null. */
        List<TokenLogprob> promptScores;
        /** Batch index and position of this slot's first prompt token in the current batch, and how many there are. */
        int scoreIndex;
        int scorePosition;
        int scoreCount;

        Slot(int id, int capacity) {
            this.id = id;
            this.tokens = new int[capacity];
        }

        void start(Generation g) {
            generation = g;
            GenerationRequest r = g.request();
            lastUsed = ++useClock;
            leader = null;
            sampler = context.sampler(r.sampling());
            utf8 = new Utf8Accumulator();
            stops = new StopMatcher(r.stops());
            decoding = false;
            prefilled = 0;
            position = 0;
            generated = 0;
            reused = 0;
            int room = config.slotContext() - r.prompt().length;
            limit = r.maxTokens() > 0 ? Math.min(r.maxTokens(), room) : room;
            startNanos = System.nanoTime();
            firstTokenNanos = 0;
            logprobs = r.logprobs() >= 0 ? new ArrayList<>() : null;
            promptScores = r.scorePrompt() ? new ArrayList<>() : null;
            scoreCount = 0;
        }

        /**
         * Takes the longest cached prefix of the prompt: this slot's own cells, or another slot's
         * (busy or not) shared by {@code llama_memory_seq_cp}; only the rest will be prefilled. When
         * another slot is prefilling a prompt that shares a longer prefix, and {@code mayWait}, waits
         * for it instead ({@link #leader}), so that requests arriving together with the same system
         * prompt compute it once.
         */
        void acquirePrefix(boolean mayWait) {
            int[] prompt = generation.request().prompt();
            // The last prompt token is always computed: its logits give the first sampled token. A
            // scored prompt needs the logits of every position, so none of it may come from a cache.
            int usable = promptScores != null ? 0 : prompt.length - 1;
            int own = commonPrefix(tokens, cached, prompt, usable);
            Slot source = null;
            int best = own;
            for (Slot other : slots) {
                if (other == this) {
                    continue;
                }
                int prefix = commonPrefix(other.tokens, other.cached, prompt, usable);
                if (prefix > best) {
                    best = prefix;
                    source = other;
                }
            }
            if (mayWait) {
                Slot lead = null;
                int ahead = best;
                for (Slot other : slots) {
                    if (other == this || other.generation == null || other.decoding || other.leader != null) {
                        continue;
                    }
                    int[] theirs = other.generation.request().prompt();
                    int prefix = commonPrefix(theirs, theirs.length, prompt, usable);
                    if (prefix > ahead && worthWaiting(prefix - best, theirs.length - other.prefilled)) {
                        ahead = prefix;
                        lead = other;
                    }
                }
                if (lead != null) {
                    leader = lead;
                    leaderGeneration = lead.generation;
                    awaited = ahead;
                    prefixWaits++;
                    return;
                }
            }
            int keep;
            if (source == null) {
                keep = own;
                if (!context.removeTokens(id, keep, -1)) {
                    // Some memories (recurrent, sliding window) cannot drop a tail: start over.
                    context.removeTokens(id, 0, -1);
                    keep = 0;
                }
            } else {
                context.removeTokens(id, 0, -1);
                context.copySequence(source.id, id, 0, best);
                System.arraycopy(source.tokens, 0, tokens, 0, best);
                keep = best;
                prefixCopies++;
            }
            cached = keep;
            prefilled = keep;
            position = keep;
            reused = keep;
            reusedTokens += keep;
        }

        /** Whether the leader is still computing the prefix this slot waits for. */
        boolean stillWaiting() {
            Slot l = leader;
            return l.generation == leaderGeneration && !l.decoding && l.cached < awaited;
        }

        /**
         * Scores the prompt tokens this step computed: the logits at position {@code p} give the
         * log-probability of the prompt's token {@code p + 1}. The last position's logits are the
         * first sampled token's, scored by {@link #onLogits}.
         */
        void scorePromptTokens() {
            int[] prompt = generation.request().prompt();
            int top = generation.request().logprobs();
            int n = scoreCount;
            scoreCount = 0;
            for (int k = 0; k < n; k++) {
                int next = scorePosition + k + 1;
                if (next >= prompt.length) {
                    break;
                }
                TokenLogprobs lp;
                try {
                    lp = context.logprobs(scoreIndex + k, prompt[next], top);
                } catch (ForgeException | UnsupportedOperationException e) {
                    fail(e instanceof ForgeException f ? f : new ForgeException(e.getMessage(), e));
                    return;
                }
                promptScores.add(entry(prompt[next], lp));
            }
        }

        private TokenLogprob entry(int token, TokenLogprobs lp) {
            List<TokenLogprob> alternatives = new ArrayList<>(lp.top().size());
            for (TokenLogprobs.Candidate c : lp.top()) {
                alternatives.add(new TokenLogprob(vocab.piece(c.id(), true), c.logprob(), List.of()));
            }
            return new TokenLogprob(vocab.piece(token, true), lp.token().logprob(), alternatives);
        }

        /** The logits of this slot's last batch token are ready: sample, emit, maybe finish. */
        void onLogits(long now) {
            if (!decoding) {
                decoding = true; // the whole prompt is in: from now on, one token per step
                publish();
                if (promptScores != null) {
                    generation.emit(new GenerationEvent.PromptLogprobs(promptScores));
                    promptScores = null;
                }
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
            logprobs.add(entry(token, lp));
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

        /** Ends the request; the slot's KV cells stay cached for the next prompt that shares them. */
        void finish(FinishReason reason) {
            Generation g = generation;
            if (reason != FinishReason.CANCELLED) {
                String rest = stops.push(utf8.flush());
                rest += stops.flush();
                if (!rest.isEmpty()) {
                    g.emit(new GenerationEvent.Text(rest, 0, drainLogprobs()));
                }
            }
            long end = System.nanoTime();
            int promptTokens = g.request().prompt().length;
            double queueMs = (startNanos - g.submittedNanos()) / 1e6;
            double promptMs = firstTokenNanos > 0 ? (firstTokenNanos - startNanos) / 1e6 : (end - startNanos) / 1e6;
            double ttftMs = firstTokenNanos > 0 ? (firstTokenNanos - g.submittedNanos()) / 1e6 : 0;
            double decodeMs = firstTokenNanos > 0 ? (end - firstTokenNanos) / 1e6 : 0;
            Timings timings = new Timings(queueMs, promptTokens, reused, promptMs, ttftMs, Math.max(0, generated), decodeMs);
            release();
            // Publish before the final event, so whoever sees it sees this slot free.
            publish();
            g.emit(new GenerationEvent.Done(reason, timings, stops.matched()));
        }

        void fail(ForgeException error) {
            Generation g = generation;
            context.removeTokens(id, 0, -1);
            cached = 0;
            release();
            publish();
            g.emit(new GenerationEvent.Failed(error));
        }

        void release() {
            if (sampler != null) {
                sampler.close();
                sampler = null;
            }
            generation = null;
            leader = null;
            leaderGeneration = null;
            decoding = false;
            batchIndex = -1;
            lastUsed = ++useClock;
            logprobs = null;
            promptScores = null;
            scoreCount = 0;
        }
    }
}
