package forge.runtime.engine;

import forge.api.backend.AdapterScale;
import forge.api.backend.InferenceContext;
import forge.api.backend.MediaTokens;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a slot's cells hold before a request's prompt is prefilled there: carries out the
 * {@link PrefixPlan} (keep the slot's own prefix, copy another slot's, restore the host prompt
 * cache's, or wait for a leader), saves a slot's state into the host cache before its cells are
 * replaced, and counts what was reused. The decisions are the pure classes' ({@code PrefixPlan},
 * {@code PromptCache}); this class makes the native calls, which take positions where the slot
 * counts cells ({@link Slot#position}). Engine thread only.
 */
final class SlotPrefixes {

    private static final Logger LOG = LoggerFactory.getLogger(SlotPrefixes.class);

    private final InferenceContext context;
    private final Slot[] slots;
    private final ActiveRequest[] running;
    private final KvPool pool;
    /** The host prompt cache and this context's key in it; {@code key} is null when there is none. */
    private final PromptCache cache;

    private final PromptCache.Key key;

    long reusedTokens;
    long prefixCopies;
    long prefixWaits;
    long restoredTokens;
    long cacheSaves;
    long cacheRestores;

    SlotPrefixes(
            InferenceContext context,
            Slot[] slots,
            ActiveRequest[] running,
            KvPool pool,
            PromptCache cache,
            PromptCache.Key key) {
        this.context = context;
        this.slots = slots;
        this.running = running;
        this.pool = pool;
        this.cache = cache;
        this.key = cache.enabled() && context.savesSequences() ? key : null;
    }

    /** Carries out the request's {@link PrefixPlan} in slot {@code id}. */
    void acquire(int id, boolean mayWait) {
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
                if (!context.removeTokens(id, slot.position(keep), -1)) {
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
                context.copySequence(c.source(), id, 0, slots[c.source()].position(keep));
                slot.copyFrom(slots[c.source()], keep);
                prefixCopies++;
            }
            case PrefixPlan.Restore h -> {
                saveBeforeReplacing(id, 0);
                keep = restore(id, hosted.entry(), h.tokens(), r.request.media());
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
    void saveBeforeReplacing(int id, int kept) {
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
     * Restores {@code entry} into slot {@code id} and keeps its first {@code tokens} cells.
     *
     * @return the cells kept: 0 when the backend refused the state (the slot then holds nothing)
     */
    private int restore(int id, PromptCache.Entry entry, int tokens, MediaTokens media) {
        Slot slot = slots[id];
        if (pool.enabled()) {
            // llama.cpp restores the whole state before the tail is dropped: it needs that many free cells.
            pool.makeRoom(entry.tokens().length);
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
        // the kept cells are a prefix of the request's prompt, whose media say their positions
        slot.restore(entry.tokens(), media == null ? List.of() : media.media());
        int keep = tokens;
        if (keep < entry.tokens().length && !context.removeTokens(id, slot.position(keep), -1)) {
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
    List<SlotView> views(List<AdapterScale> adapters) {
        List<SlotView> views = new ArrayList<>(slots.length);
        for (int i = 0; i < slots.length; i++) {
            views.add(slots[i].view(running[i], slots[i].adapters.equals(adapters)));
        }
        return views;
    }
}
