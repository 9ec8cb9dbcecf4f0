package forge.runtime.engine;

import forge.api.ForgeException;
import forge.api.backend.AdapterScale;
import forge.api.backend.InferenceContext;
import forge.api.backend.LoraAdapter;
import forge.api.backend.MediaTokens;
import forge.api.backend.TokenBatch;
import forge.api.backend.TokenSampler;
import forge.api.backend.Vocabulary;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The slots of one context and what the engine thread does with them: it starts a request in a
 * slot (with the prefix the {@link PrefixPlan} chooses), runs one decode step for every active
 * request, and ends requests. No thread and no queue of its own: {@link Engine} calls it from its
 * thread, and a test calls it step by step. Engine thread only, so nothing here needs a lock.
 */
final class Scheduler {

    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

    private final InferenceContext context;
    private final Vocabulary vocab;
    private final int slotContext;
    private final ComputeGate gate;
    private final Consumer<EngineSnapshot> published;
    private final Slot[] slots;
    /** {@code running[i]} is the request slot {@code i} runs; null when it is free. */
    private final ActiveRequest[] running;

    private long prefilledTokens;
    /** Media chunks encoded (each an encode of the projector), and the embeddings they decoded. */
    private long mediaEncodes;

    private long mediaTokens;
    /** The one KV pool's count, when the slots share one. */
    private final KvPool pool;
    /** What a slot holds before a prompt is prefilled there: kept, copied, restored, saved. */
    private final SlotPrefixes prefixes;
    /** The logical clock of {@link Slot#lastUsed}. */
    private long useClock;
    /** How requests that name none speculate. */
    private Speculation speculation = Speculation.OFF;
    /** False once the context could not drop a rejected draft's cells (a recurrent memory): no more drafts. */
    private boolean canSpeculate = true;

    /** Where the next step starts looking for the adapter set it decodes: steps take turns between sets. */
    private int turn;

    private long draftTokens;
    private long draftAccepted;
    private long draftSteps;
    /** The draft model's context, when the engine has one; null for n-gram drafting only. */
    private Drafter drafter;
    /** This step's position of each decoding slot's last token. */
    private final int[] positions;
    /** Benchmark-only synthetic acceptance; {@link SyntheticAcceptance#OFF} for real verification. */
    private SyntheticAcceptance synthetic = SyntheticAcceptance.OFF;

    /**
     * @param slots       sequence ids {@code 0..slots-1} of the context
     * @param slotContext the cells each slot may fill
     * @param gate        where decodes take turns with other contexts
     * @param published   takes each snapshot, on the engine thread
     * @param cache       where slots' states are saved before their cells are replaced, and restored
     *                    from; {@link PromptCache#OFF} for none
     * @param key         this context's model and settings in {@code cache}; null for no host cache
     */
    Scheduler(
            InferenceContext context,
            Vocabulary vocab,
            int slots,
            int slotContext,
            ComputeGate gate,
            Consumer<EngineSnapshot> published,
            PromptCache cache,
            PromptCache.Key key) {
        this.context = context;
        this.vocab = vocab;
        this.slotContext = slotContext;
        this.gate = gate;
        this.published = published;
        this.slots = new Slot[slots];
        this.running = new ActiveRequest[slots];
        this.positions = new int[slots];
        for (int i = 0; i < slots; i++) {
            this.slots[i] = new Slot(i, slotContext);
        }
        this.pool = new KvPool(this, this.slots, running);
        this.prefixes = new SlotPrefixes(context, this.slots, running, pool, cache, key);
    }

    /** Requests that do not name their own speculation get {@code s}. */
    Scheduler speculation(Speculation s) {
        this.speculation = Objects.requireNonNull(s);
        return this;
    }

    /**
     * Drafts with {@code d}, the draft model's context: every request that speculates drafts with
     * it (its own {@code speculative.*} sizes apply to the draft model).
     */
    Scheduler drafter(Drafter d) {
        this.drafter = d;
        return this;
    }

    /** Draft tokens are accepted at random, as {@code s} says, instead of by the target (benchmarks only). */
    Scheduler synthetic(SyntheticAcceptance s) {
        this.synthetic = Objects.requireNonNull(s);
        return this;
    }

    /**
     * The slots share one KV pool of {@code cells} cells (the context's size): each may fill all of
     * it that the others leave, and the scheduler keeps the count that decides who gets a cell.
     */
    Scheduler pool(int cells) {
        pool.cells(cells);
        return this;
    }

    /** Idle slots' prefixes evicted for active requests, since the scheduler was made. */
    long poolEvictions() {
        return pool.evictions();
    }

    /** Requests refused (at admission) or ended (running) with 503 because the pool had no cells for them. */
    long poolRefusals() {
        return pool.refusals();
    }

    /** The draft model's context's threads may sleep too. */
    void idle() {
        if (drafter != null) {
            drafter.idle();
        }
    }

    /** The number of slots. */
    int slots() {
        return slots.length;
    }

    boolean anyFree() {
        for (ActiveRequest r : running) {
            if (r == null) {
                return true;
            }
        }
        return false;
    }

    boolean anyActive() {
        for (ActiveRequest r : running) {
            if (r != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * Starts a generation in the free slot that caches most of its prompt ({@link SlotChoice}),
     * taking what its {@link PrefixPlan} says. A sampler or cache failure fails this request alone.
     * Call only when {@link #anyFree()}.
     */
    void start(Generation generation) {
        if (pool.enabled() && !pool.fits(generation.request().prompt().length)) {
            pool.refused();
            generation.emit(new GenerationEvent.Failed(new EngineException(
                    EngineException.Code.UNAVAILABLE,
                    "the KV pool's " + pool.cells() + " cells are taken by the running requests ("
                            + (pool.cells() - pool.free(true)) + " held), and this prompt of "
                            + generation.request().prompt().length
                            + " tokens needs more than the rest: retry when they finish")));
            return;
        }
        int id = SlotChoice.choose(
                generation.request().prompt(),
                prefixes.views(generation.request().adapters()));
        Slot slot = slots[id];
        slot.lastUsed = ++useClock;
        try {
            TokenSampler sampler = context.sampler(generation.request().sampling());
            Speculation own = generation.request().speculation();
            Speculation chosen = own == null ? speculation : drafter != null ? own.onDraftModel() : own;
            if (chosen.model() && drafter == null) {
                chosen = Speculation.OFF; // a draft model's sizes, on an engine without one
            }
            if (generation.request().media() != null) {
                // its history holds media placeholders, which neither an n-gram draft nor a draft model may propose
                chosen = Speculation.OFF;
            }
            running[id] = new ActiveRequest(
                    generation, sampler, context, vocab, slotContext, chosen, synthetic.random(generation.request()));
            prefixes.acquire(id, true);
        } catch (RuntimeException e) {
            // This request's sampler or prefix could not be set up: it ends, the others go on.
            fail(id, generation, asForge(e, ""));
        }
        publish();
    }

    /**
     * Encodes the media chunk that starts at request {@code r}'s next prompt position and decodes
     * its embeddings into slot {@code id} ({@code InferenceContext.decodeMedia}), in a decode of its
     * own before this step's batch, in turn with other contexts as decodes are. A failure fails this
     * request alone (its cells are dropped).
     *
     * @return whether the chunk is in the cache now (false: the request failed and left its slot)
     */
    private boolean decodeMedia(int id, ActiveRequest r) {
        Slot slot = slots[id];
        MediaTokens media = r.request.media();
        List<MediaTokens.Span> spans = media == null ? List.of() : media.media();
        int index = -1;
        for (int k = 0; k < spans.size(); k++) {
            if (spans.get(k).start() == r.prefilled) {
                index = k;
            }
        }
        try {
            if (index < 0) {
                throw new IllegalStateException(
                        "prompt position " + r.prefilled + " is inside a media chunk, which is decoded whole");
            }
            MediaTokens.Span span = spans.get(index);
            int span0 = index;
            // libmtmd lays the chunk's positions out from its first (in 2-D with M-RoPE)
            int position = slot.position(slot.cached());
            gate.compute(context, () -> context.decodeMedia(media, span0, position, id));
            slot.appendMedia(r.prompt, span.start(), span.length(), span.positions());
            slot.computed();
            r.prefilled += span.length();
            prefilledTokens += span.length();
            mediaEncodes++;
            mediaTokens += span.length();
            return true;
        } catch (RuntimeException e) {
            LOG.warn("media chunk of request {} failed: {}", r.request.id(), e.getMessage());
            fail(id, r.generation, asForge(e, "encoding the prompt's media failed: "));
            return false;
        }
    }

    /**
     * Saves every slot's cells into the host cache (those worth it and not there already), when the
     * context is about to go: at shutdown, so that a cache kept on disk has each slot's conversation
     * for the next start, and on unload, so the model's next load restores them. Engine thread only.
     */
    void saveAll() {
        for (int id = 0; id < slots.length; id++) {
            prefixes.saveBeforeReplacing(id, 0);
        }
    }

    /** Gives idle slot {@code id}'s cells back to the pool, offering them to the host cache first. */
    void evict(int id) {
        prefixes.saveBeforeReplacing(id, 0);
        context.removeTokens(id, 0, -1);
        slots[id].forget();
        if (drafter != null) {
            drafter.forget(id); // its draft sequence mirrored those cells
        }
    }

    /**
     * The adapter set this step decodes: the set of the first request with work, looking from the
     * slot after the one that chose last, so that sets take turns (one decode applies one set to
     * all its tokens, as llama-server never batches requests whose adapters differ). Null when no
     * request has work.
     */
    private List<AdapterScale> stepAdapters() {
        for (int k = 0; k < slots.length; k++) {
            int i = (turn + k) % slots.length;
            ActiveRequest r = running[i];
            if (r != null && r.waiting == null && (r.decoding() || r.prefilled < r.prompt.length)) {
                turn = i + 1;
                return r.request.adapters();
            }
        }
        return null;
    }

    /** Whether {@code r} decodes its next token in this step: it is decoding, with the step's adapter set (one set per decode). */
    static boolean decodesThisStep(ActiveRequest r, List<AdapterScale> adapters) {
        return r != null && r.decoding() && r.request.adapters().equals(adapters);
    }

    /** One decode for every active request: the next tokens of the decoding ones, then as much prefill as fits. */
    void step() {
        TokenBatch batch = context.batch();
        batch.clear();
        boolean changed = false;
        for (int i = 0; i < slots.length; i++) {
            if (running[i] != null && running[i].generation.cancelled()) {
                finish(i, FinishReason.CANCELLED);
                changed = true;
            }
        }
        // Requests waiting for another slot's prefix: go on once it is computed, or its slot moved on.
        for (int i = 0; i < slots.length; i++) {
            ActiveRequest r = running[i];
            if (r != null && r.waiting != null) {
                ActiveRequest.Waiting w = r.waiting;
                if (PrefixWait.isOver(
                        running[w.slot()] == w.leader(),
                        w.leader().decoding(),
                        slots[w.slot()].cached(),
                        w.awaited())) {
                    r.waiting = null;
                    try {
                        prefixes.acquire(i, false);
                    } catch (RuntimeException e) {
                        fail(i, r.generation, asForge(e, "generation failed: "));
                    }
                    changed = true;
                }
            }
        }
        List<AdapterScale> adapters = stepAdapters();
        boolean reclaimed = false;
        if (pool.enabled() && adapters != null) {
            reclaimed = pool.reclaimForDecode(adapters);
            changed |= reclaimed;
        }
        // Every decoding slot's next token has a place in the batch; drafts share what is left before prefill.
        int draftBudget = batch.capacity();
        for (ActiveRequest r : running) {
            if (decodesThisStep(r, adapters)) {
                draftBudget--;
            }
        }
        for (int i = 0; i < slots.length; i++) {
            ActiveRequest r = running[i];
            if (r != null) {
                r.batchIndex = -1;
                r.draftLength = 0;
                if (decodesThisStep(r, adapters)) {
                    positions[i] = slots[i].append(r.lastToken);
                }
            }
        }
        if (pool.enabled()) {
            // Drafts take free cells only: an idle slot's prefix is worth more than a guess.
            draftBudget = Math.max(0, Math.min(draftBudget, pool.free(false)));
        }
        draftBudget = draftWithModel(draftBudget, adapters);
        for (int i = 0; i < slots.length; i++) {
            ActiveRequest r = running[i];
            if (decodesThisStep(r, adapters)) {
                Slot slot = slots[i];
                int position = positions[i];
                r.batchIndex = batch.add(r.lastToken, position, i, true);
                if (!r.speculation.model()) {
                    int room = Math.min(draftBudget, Math.min(r.draftRoom(), slotContext - 1 - position));
                    if (canSpeculate && room > 0) {
                        r.draftLength = r.speculation.propose(slot.tokens(), position + 1, room, r.draft);
                        draftBudget -= r.draftLength;
                    }
                }
                for (int j = 0; j < r.draftLength; j++) {
                    batch.add(r.draft[j], slot.append(r.draft[j]), i, true);
                }
            }
        }
        int poolRoom = pool.enabled() ? pool.prefillRoom(adapters, batch) : Integer.MAX_VALUE;
        // Prefill in chunks, so decoding sequences keep moving while a long prompt is read.
        for (int i = 0; i < slots.length; i++) {
            ActiveRequest r = running[i];
            if (r == null
                    || r.decoding()
                    || r.waiting != null
                    || !r.request.adapters().equals(adapters)) {
                continue;
            }
            Slot slot = slots[i];
            int[] prompt = r.prompt;
            boolean scoring = r.scoring();
            while (r.prefilled < prompt.length && batch.size() < batch.capacity() && poolRoom > 0) {
                poolRoom--;
                boolean last = r.prefilled == prompt.length - 1;
                int token = prompt[r.prefilled];
                if (MediaTokens.isPlaceholder(token)) {
                    // A media chunk is decoded on its own, once the text before it is in the cache:
                    // a later step when this one holds that text.
                    if (slot.inBatch() || !decodeMedia(i, r)) {
                        break;
                    }
                    changed = true;
                    continue;
                }
                int position = slot.append(token);
                int index = batch.add(token, position, i, last || scoring);
                if (scoring && r.scoreCount++ == 0) {
                    r.scoreIndex = index;
                    r.scorePosition = r.prefilled; // a prompt index: a scored prompt reuses no cells
                }
                r.prefilled++;
                prefilledTokens++;
                if (last) {
                    r.batchIndex = index;
                }
            }
        }
        if (batch.size() == 0) {
            if (pool.enabled() && adapters != null && !reclaimed && pool.noneDecoding()) {
                // Every active request is prefilling and the pool has no cell for any of them: none can
                // move until one gives its cells up. The newest does, as when decoding runs out.
                pool.failNewest("its prompt no longer fits beside the other requests' cells");
                changed = true;
            }
            if (changed) {
                publish();
            }
            return;
        }
        try {
            context.adapters(adapters);
            gate.decode(context);
        } catch (ForgeException e) {
            LOG.warn("decode failed for {} sequence(s): {}", batch.size(), e.getMessage());
            for (int i = 0; i < slots.length; i++) {
                if (running[i] != null && slots[i].inBatch()) {
                    fail(i, running[i].generation, e);
                }
            }
            publish();
            return;
        }
        long now = System.nanoTime();
        for (Slot slot : slots) {
            if (slot.inBatch()) {
                slot.computed(); // what this step computed is in the KV cache now
            }
        }
        for (int i = 0; i < slots.length; i++) {
            ActiveRequest r = running[i];
            if (r != null && r.scoreCount > 0) {
                try {
                    r.scorePromptTokens();
                } catch (RuntimeException e) {
                    fail(i, r.generation, asForge(e, "scoring the prompt failed: "));
                }
            }
        }
        for (int i = 0; i < slots.length; i++) {
            ActiveRequest r = running[i];
            if (r != null && r.batchIndex >= 0) {
                try {
                    sample(i, r, now);
                } catch (RuntimeException e) {
                    // This request's sampler, grammar, stop rule or log-probabilities failed: it ends, the others go
                    // on.
                    LOG.warn("request {} failed while sampling: {}", r.request.id(), e.getMessage());
                    fail(i, r.generation, asForge(e, "sampling failed: "));
                }
            }
        }
        if (changed) {
            publish();
        }
    }

    /**
     * Has the draft model draft for every decoding request that drafts with it, all together, each
     * within the room its limit, its slot and the batch leave.
     *
     * @param budget the batch places left for drafts
     * @return the places left after these drafts
     */
    private int draftWithModel(int budget, List<AdapterScale> adapters) {
        if (drafter == null || !canSpeculate) {
            return budget;
        }
        List<Drafter.Job> jobs = null;
        for (int i = 0; i < slots.length; i++) {
            ActiveRequest r = running[i];
            if (!decodesThisStep(r, adapters) || !r.speculation.model()) {
                continue;
            }
            int room = Math.min(budget, Math.min(r.draftRoom(), slotContext - 1 - positions[i]));
            if (room > 0) {
                if (jobs == null) {
                    jobs = new ArrayList<>();
                }
                jobs.add(new Drafter.Job(
                        i,
                        slots[i].tokens(),
                        positions[i] + 1,
                        room,
                        r.speculation.draftMin(),
                        r.speculation.pMin(),
                        r.draft));
                budget -= room;
            }
        }
        if (jobs == null) {
            return budget;
        }
        // Each context's CPU workers spin for a while after its decode (LlamaThreadpools): paused while
        // the other context computes, so that the two do not take the cores from each other. A paused
        // pool resumes at its next decode.
        context.idle();
        drafter.draft(jobs);
        drafter.idle();
        for (Drafter.Job j : jobs) {
            running[j.slot].draftLength = j.drafted;
            budget += j.room - j.drafted;
        }
        return budget;
    }

    /** The logits of slot {@code id}'s last batch token are ready: sample, emit, maybe finish. */
    private void sample(int id, ActiveRequest r, long now) {
        if (!r.decoding()) {
            r.startDecoding();
            publish(); // the slot decodes now
            r.sendPromptScores();
        }
        int drafted = r.draftLength;
        if (drafted == 0) {
            FinishReason end = r.sampled(r.sampler.sample(r.batchIndex), now);
            if (end != null) {
                finish(id, end);
            }
            return;
        }
        verify(id, r, drafted, now);
    }

    /**
     * Verifies slot {@code id}'s draft of {@code drafted} tokens: samples each position in order with
     * the request's own chain, which accepts what it samples, and goes on while the sample equals
     * the draft token that the next position was computed after. Every token emitted is thus
     * sampled from the logits of exactly the tokens before it, by a chain advanced by exactly those
     * tokens (penalties, grammar, seeded randomness: one draw per emitted token), as without a
     * draft. The cells of the rejected draft tokens are then removed.
     */
    private void verify(int id, ActiveRequest r, int drafted, long now) {
        int first = r.batchIndex;
        Slot slot = slots[id];
        // The cells computed this step: the last token at `base`, the draft after it.
        int base = slot.cached() - drafted - 1;
        int accepted = 0;
        draftSteps++;
        draftTokens += drafted;
        for (int j = 0; j <= drafted; j++) {
            r.batchIndex = first + j; // where its log-probabilities are read, if asked for
            int token = r.sampler.sample(first + j);
            boolean match;
            if (r.synthetic == null) {
                match = j < drafted && token == r.draft[j];
            } else {
                // Benchmarks only: the draft token stands or falls at random, whatever was sampled.
                match = j < drafted && synthetic.accepts(r.synthetic, j, vocab, r.draft[j]);
                token = match ? r.draft[j] : token;
            }
            if (match) {
                accepted++;
            }
            FinishReason end = r.sampled(token, now);
            if (end != null || !match) {
                draftAccepted += accepted;
                r.verified(drafted, accepted);
                if (end != null) {
                    // The cells past the last token hold the draft, computed after the tokens before it:
                    // true to slot.tokens(), so they stay cached like any other.
                    finish(id, end);
                    return;
                }
                break;
            }
        }
        int keep = base + 1 + accepted;
        if (keep < slot.cached()) {
            if (!context.removeTokens(id, slot.position(keep), -1)) {
                // This memory cannot drop a tail (recurrent state): it cannot speculate at all.
                canSpeculate = false;
                throw new ForgeException("this model's memory cannot drop rejected draft tokens, so it cannot decode"
                        + " speculatively; speculation is now off for it");
            }
            slot.keep(keep);
        }
    }

    /** Ends slot {@code id}'s request; the slot's KV cells stay cached for the next prompt that shares them. */
    private void finish(int id, FinishReason reason) {
        ActiveRequest r = running[id];
        Timings timings = r.end(reason);
        running[id] = null;
        slots[id].lastUsed = ++useClock;
        // Publish before the final event, so whoever sees it sees this slot free.
        publish();
        r.generation.emit(new GenerationEvent.Done(reason, timings, r.stopSequence()));
    }

    /**
     * Fails the generation in slot {@code id} (its request, or one that could not start there): the
     * slot's cells are removed, since what they hold is not known to be sound.
     */
    void fail(int id, Generation generation, ForgeException error) {
        context.removeTokens(id, 0, -1);
        slots[id].forget();
        ActiveRequest r = running[id];
        if (r != null) {
            r.close();
            running[id] = null;
        }
        slots[id].lastUsed = ++useClock;
        publish();
        generation.emit(new GenerationEvent.Failed(error));
    }

    /** A request's own failure as the error its client gets. */
    private static ForgeException asForge(RuntimeException e, String what) {
        return e instanceof ForgeException f ? f : new ForgeException(what + e.getMessage(), e);
    }

    /**
     * Fails every running request (the engine stops or failed). A context that failed may fail
     * again when its cells are dropped: the requests end all the same.
     */
    void failAll(ForgeException error) {
        for (int i = 0; i < slots.length; i++) {
            ActiveRequest r = running[i];
            if (r == null) {
                continue;
            }
            try {
                fail(i, r.generation, error);
            } catch (RuntimeException | Error e) {
                try {
                    r.close();
                } catch (RuntimeException | Error ignored) {
                    // the sampler went with the context
                }
                running[i] = null;
                slots[i].forget();
                r.generation.emit(new GenerationEvent.Failed(error));
            }
        }
    }

    /** Publishes a new snapshot for readers on other threads. */
    void publish() {
        SlotSnapshot[] views = new SlotSnapshot[slots.length];
        Set<LoraAdapter> adapters = new HashSet<>();
        for (ActiveRequest r : running) {
            if (r != null) {
                r.request.adapters().forEach(a -> adapters.add(a.adapter()));
            }
        }
        int cells = 0;
        for (int i = 0; i < slots.length; i++) {
            Slot s = slots[i];
            ActiveRequest r = running[i];
            SlotState state = r == null ? SlotState.IDLE : r.decoding() ? SlotState.DECODE : SlotState.PREFILL;
            views[i] = r == null
                    ? new SlotSnapshot(i, state, s.cached(), "", 0, 0, 0, 0)
                    : new SlotSnapshot(
                            i,
                            state,
                            s.cached(),
                            r.request.id(),
                            r.prompt.length,
                            r.reused(),
                            r.generated(),
                            r.restored);
            // Each slot has its own KV stream, so a prefix copied from another slot is held by both.
            cells += s.cached();
        }
        published.accept(new EngineSnapshot(
                List.of(views),
                prefilledTokens,
                prefixes.reusedTokens,
                prefixes.prefixCopies,
                prefixes.prefixWaits,
                cells,
                context.contextSize(),
                prefixes.restoredTokens,
                prefixes.cacheSaves,
                prefixes.cacheRestores,
                draftTokens,
                draftAccepted,
                draftSteps,
                adapters,
                mediaEncodes,
                mediaTokens));
    }
}
