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
import java.util.Arrays;
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
    private long reusedTokens;
    private long prefixCopies;
    private long prefixWaits;
    private long restoredTokens;
    private long cacheSaves;
    private long cacheRestores;
    /** Media chunks encoded (each an encode of the projector), and the embeddings they decoded. */
    private long mediaEncodes;

    private long mediaTokens;
    /** The host prompt cache and this context's key in it; {@code key} is null when there is none. */
    private final PromptCache cache;

    private final PromptCache.Key key;
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
     * The cells of the one KV pool the slots share ({@code kv_unified}); 0 with a stream per slot,
     * where each slot's own limit is all the accounting there is. See {@code package-info.java}.
     */
    private int poolCells;
    /** Idle slots whose cells were given up for an active request's, and requests refused or ended for lack of cells. */
    private long poolEvictions;

    private long poolRefusals;

    /**
     * @param slots       sequence ids {@code 0..slots-1} of the context
     * @param slotContext the cells each slot may fill
     * @param gate        where decodes take turns with other contexts
     * @param published   takes each snapshot, on the engine thread
     */
    Scheduler(
            InferenceContext context,
            Vocabulary vocab,
            int slots,
            int slotContext,
            ComputeGate gate,
            Consumer<EngineSnapshot> published) {
        this(context, vocab, slots, slotContext, gate, published, PromptCache.OFF, null);
    }

    /**
     * @param cache where slots' states are saved before their cells are replaced, and restored from
     * @param key   this context's model and settings in {@code cache}; null for no host cache
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
        this.cache = cache;
        this.key = cache.enabled() && context.savesSequences() ? key : null;
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
        if (cells < 0) {
            throw new IllegalArgumentException("pool cells: " + cells);
        }
        this.poolCells = cells;
        return this;
    }

    /** Idle slots' prefixes evicted for active requests, since the scheduler was made. */
    long poolEvictions() {
        return poolEvictions;
    }

    /** Requests refused (at admission) or ended (running) with 503 because the pool had no cells for them. */
    long poolRefusals() {
        return poolRefusals;
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
        if (poolCells > 0 && !fitsPool(generation.request().prompt().length)) {
            poolRefusals++;
            generation.emit(new GenerationEvent.Failed(new EngineException(
                    EngineException.Code.UNAVAILABLE,
                    "the KV pool's " + poolCells + " cells are taken by the running requests ("
                            + (poolCells - free(true)) + " held), and this prompt of "
                            + generation.request().prompt().length
                            + " tokens needs more than the rest: retry when they finish")));
            return;
        }
        int id = SlotChoice.choose(
                generation.request().prompt(), views(generation.request().adapters()));
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
            acquirePrefix(id, true);
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
            int position = slot.cached();
            gate.compute(context, () -> context.decodeMedia(media, span0, position, id));
            for (int j = 0; j < span.length(); j++) {
                slot.append(r.prompt[span.start() + j]);
            }
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

    /** Carries out the request's {@link PrefixPlan} in slot {@code id}. */
    private void acquirePrefix(int id, boolean mayWait) {
        ActiveRequest r = running[id];
        Slot slot = slots[id];
        int usable = r.scoring() ? 0 : r.prompt.length - 1;
        List<AdapterScale> adapters = r.request.adapters();
        // The host cache holds states computed without adapters only (saveBeforeReplacing).
        PromptCache.Match hosted =
                key == null || usable <= 0 || !adapters.isEmpty() ? null : cache.longest(key, r.prompt, usable);
        PrefixPlan plan = PrefixPlan.of(
                id, r.prompt, r.scoring(), mayWait, views(adapters), hosted == null ? 0 : hosted.tokens());
        int keep;
        switch (plan) {
            case PrefixPlan.Wait w -> {
                r.waiting = new ActiveRequest.Waiting(w.leader(), running[w.leader()], w.tokens());
                prefixWaits++;
                return;
            }
            case PrefixPlan.Keep k -> {
                keep = k.tokens();
                saveBeforeReplacing(id, keep);
                if (!context.removeTokens(id, keep, -1)) {
                    // Some memories (recurrent, sliding window) cannot drop a tail: start over.
                    context.removeTokens(id, 0, -1);
                    keep = 0;
                }
                slot.keep(keep);
            }
            case PrefixPlan.Copy c -> {
                keep = c.tokens();
                saveBeforeReplacing(id, 0);
                context.removeTokens(id, 0, -1);
                context.copySequence(c.source(), id, 0, keep);
                slot.copyFrom(slots[c.source()], keep);
                prefixCopies++;
            }
            case PrefixPlan.Restore h -> {
                saveBeforeReplacing(id, 0);
                keep = restore(id, hosted.entry(), h.tokens());
                r.restored = keep;
            }
        }
        // From here on the slot's cells are this request's, computed with its adapters.
        slot.adapters = adapters;
        r.reuse(keep);
        reusedTokens += keep;
    }

    /**
     * Saves slot {@code id}'s cells into the host cache when a request is about to keep only the
     * first {@code kept} of them and {@link PromptCache#worthSaving} says so. A state that cannot be
     * saved is only logged: the request goes on without it.
     */
    private void saveBeforeReplacing(int id, int kept) {
        Slot slot = slots[id];
        int cached = slot.cached();
        // A state computed with adapters is only good for their set: its key would have to carry the
        // adapters' identity, which outlives no process, so such states are not kept.
        if (key == null
                || !slot.adapters.isEmpty()
                || !PromptCache.worthSaving(cached, kept)
                || cache.holds(key, slot.tokens(), cached)) {
            return;
        }
        try {
            byte[] state = context.saveSequence(id);
            if (cache.put(new PromptCache.Entry(key, Arrays.copyOf(slot.tokens(), cached), state))) {
                cacheSaves++;
            }
        } catch (RuntimeException e) {
            LOG.warn("could not save slot {}'s {} cached tokens to the prompt cache: {}", id, cached, e.getMessage());
        }
    }

    /**
     * Saves every slot's cells into the host cache (those worth it and not there already), when the
     * context is about to go: at shutdown, so that a cache kept on disk has each slot's conversation
     * for the next start, and on unload, so the model's next load restores them. Engine thread only.
     */
    void saveAll() {
        for (int id = 0; id < slots.length; id++) {
            saveBeforeReplacing(id, 0);
        }
    }

    /**
     * Restores {@code entry} into slot {@code id} and keeps its first {@code tokens} cells.
     *
     * @return the cells kept: 0 when the backend refused the state (the slot then holds nothing)
     */
    private int restore(int id, PromptCache.Entry entry, int tokens) {
        Slot slot = slots[id];
        if (poolCells > 0) {
            // llama.cpp restores the whole state before the tail is dropped: it needs that many free cells.
            makeRoom(entry.tokens().length);
        }
        if (!context.restoreSequence(id, entry.state())) {
            LOG.warn(
                    "the prompt cache's entry of {} tokens could not be restored into slot {}; computing it",
                    entry.tokens().length,
                    id);
            context.removeTokens(id, 0, -1);
            slot.forget();
            return 0;
        }
        slot.restore(entry.tokens());
        int keep = tokens;
        if (keep < entry.tokens().length && !context.removeTokens(id, keep, -1)) {
            context.removeTokens(id, 0, -1);
            keep = 0;
        }
        slot.keep(keep);
        cache.touch(entry);
        cacheRestores++;
        restoredTokens += keep;
        return keep;
    }

    /**
     * Every slot as the cache policy sees it now for a request with {@code adapters}: the cells of a
     * slot computed with another set are no prefix of its prompt, whatever tokens they hold.
     */
    private List<SlotView> views(List<AdapterScale> adapters) {
        List<SlotView> views = new ArrayList<>(slots.length);
        for (int i = 0; i < slots.length; i++) {
            views.add(slots[i].view(running[i], slots[i].adapters.equals(adapters)));
        }
        return views;
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
    private static boolean decodesThisStep(ActiveRequest r, List<AdapterScale> adapters) {
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
                        acquirePrefix(i, false);
                    } catch (RuntimeException e) {
                        fail(i, r.generation, asForge(e, "generation failed: "));
                    }
                    changed = true;
                }
            }
        }
        List<AdapterScale> adapters = stepAdapters();
        boolean reclaimed = false;
        if (poolCells > 0 && adapters != null) {
            reclaimed = reclaimForDecode(adapters);
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
        if (poolCells > 0) {
            // Drafts take free cells only: an idle slot's prefix is worth more than a guess.
            draftBudget = Math.max(0, Math.min(draftBudget, free(false)));
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
        int poolRoom = poolCells > 0 ? prefillRoom(adapters, batch) : Integer.MAX_VALUE;
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
                    r.scorePosition = position;
                }
                r.prefilled++;
                prefilledTokens++;
                if (last) {
                    r.batchIndex = index;
                }
            }
        }
        if (batch.size() == 0) {
            if (poolCells > 0 && adapters != null && !reclaimed && noneDecoding()) {
                // Every active request is prefilling and the pool has no cell for any of them: none can
                // move until one gives its cells up. The newest does, as when decoding runs out.
                failNewest("its prompt no longer fits beside the other requests' cells");
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
     * Cells the slots hold or have in the batch now, counted per slot: a prefix one slot copied from
     * another is counted twice, though the pool tags the same cells for both, so the count is an
     * upper bound of what llama.cpp holds and a decode it allows always finds its cells.
     *
     * @param runningOnly count only the slots that run a request (idle ones' cells can be evicted)
     */
    private int held(boolean runningOnly) {
        int n = 0;
        for (int i = 0; i < slots.length; i++) {
            if (!runningOnly || running[i] != null) {
                n += slots[i].held();
            }
        }
        return n;
    }

    /** The pool's cells not counted as held ({@code runningOnly}: as if every idle slot were evicted). */
    private int free(boolean runningOnly) {
        return poolCells - held(runningOnly);
    }

    /** Whether a prompt of {@code length} tokens and its first generated token fit beside the running requests. */
    private boolean fitsPool(int length) {
        return length + 1 <= free(true);
    }

    /**
     * Evicts idle slots' cells, least recently used first, until {@code need} cells are free; each is
     * offered to the host prompt cache first, so the prefix survives there.
     *
     * @return whether {@code need} cells are free now
     */
    private boolean makeRoom(int need) {
        while (free(false) < need) {
            int victim = -1;
            for (int i = 0; i < slots.length; i++) {
                if (running[i] == null
                        && slots[i].cached() > 0
                        && (victim < 0 || slots[i].lastUsed < slots[victim].lastUsed)) {
                    victim = i;
                }
            }
            if (victim < 0) {
                return false;
            }
            Slot slot = slots[victim];
            LOG.debug("evicting idle slot {}'s {} cells for an active request", victim, slot.cached());
            saveBeforeReplacing(victim, 0);
            context.removeTokens(victim, 0, -1);
            slot.forget();
            if (drafter != null) {
                drafter.forget(victim); // its draft sequence mirrored those cells
            }
            poolEvictions++;
        }
        return true;
    }

    /**
     * Makes room for the next token of every request decoding this step: idle slots' cells first;
     * when they do not suffice, the newest request ends with 503 until the rest fit.
     *
     * @return whether a request was ended
     */
    private boolean reclaimForDecode(List<AdapterScale> adapters) {
        boolean ended = false;
        while (true) {
            int need = 0;
            for (ActiveRequest r : running) {
                if (decodesThisStep(r, adapters)) {
                    need++;
                }
            }
            if (need == 0 || makeRoom(need)) {
                return ended;
            }
            failNewest("the KV pool has no cell left for the running requests' next tokens");
            ended = true;
        }
    }

    /**
     * The pool cells this step's prefill may take: what the batch can still carry of the prompts
     * that prefill this step, evicting idle slots for it, less one cell for every decoding request's
     * next token, so a prompt being read does not take the cell a running answer needs next.
     */
    private int prefillRoom(List<AdapterScale> adapters, TokenBatch batch) {
        int want = 0;
        int decoding = 0;
        for (ActiveRequest r : running) {
            if (r == null) {
                continue;
            }
            if (r.decoding()) {
                decoding++;
            } else if (r.waiting == null && r.request.adapters().equals(adapters)) {
                want += r.prompt.length - r.prefilled;
            }
        }
        if (want == 0) {
            return 0;
        }
        makeRoom(Math.min(want, batch.capacity() - batch.size()) + decoding);
        return Math.max(0, free(false) - decoding);
    }

    private boolean noneDecoding() {
        for (ActiveRequest r : running) {
            if (r != null && r.decoding()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Ends the request admitted last with 503 ({@code UNAVAILABLE}, so the client retries): its cells
     * go back to the pool, and the requests that were there first go on, as a full pool's newest
     * arrival should wait for them rather than take their room.
     */
    private void failNewest(String why) {
        int newest = -1;
        for (int i = 0; i < slots.length; i++) {
            if (running[i] != null && (newest < 0 || slots[i].lastUsed > slots[newest].lastUsed)) {
                newest = i;
            }
        }
        if (newest < 0) {
            return;
        }
        ActiveRequest r = running[newest];
        poolRefusals++;
        LOG.info("request {} in slot {} ends: {}", r.request.id(), newest, why);
        fail(
                newest,
                r.generation,
                new EngineException(
                        EngineException.Code.UNAVAILABLE,
                        "the KV pool's " + poolCells + " cells are full: " + why + "; retry when others finish"));
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
            if (!context.removeTokens(id, keep, -1)) {
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
    private void fail(int id, Generation generation, ForgeException error) {
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
                    ? new SlotSnapshot(i, state, s.cached(), "", 0, 0, 0)
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
                reusedTokens,
                prefixCopies,
                prefixWaits,
                cells,
                context.contextSize(),
                restoredTokens,
                cacheSaves,
                cacheRestores,
                draftTokens,
                draftAccepted,
                draftSteps,
                adapters,
                mediaEncodes,
                mediaTokens));
    }
}
