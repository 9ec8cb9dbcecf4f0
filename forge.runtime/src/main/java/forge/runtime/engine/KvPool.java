package forge.runtime.engine;

import forge.api.backend.AdapterScale;
import forge.api.backend.TokenBatch;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The count of the one KV pool the slots share ({@code kv_unified}), and what the scheduler does
 * when it runs short: which idle slot gives its cells up, which request ends with 503, how much a
 * step's prefill may take. See {@code package-info.java}, "One KV pool for all slots". With a KV
 * stream per slot ({@link #enabled()} false) each slot's own limit is all the accounting there is
 * and nothing here is asked. Counts cells (a media chunk takes one per embedding, whatever
 * positions it spans), since cells are what the pool has. Engine thread only.
 */
final class KvPool {

    private static final Logger LOG = LoggerFactory.getLogger(KvPool.class);

    private final Scheduler scheduler;
    private final Slot[] slots;
    private final ActiveRequest[] running;
    /** The pool's cells; 0 with a stream per slot. */
    private int cells;
    /** Idle slots whose cells were given up for an active request's, and requests refused or ended for lack of cells. */
    private long evictions;

    private long refusals;

    KvPool(Scheduler scheduler, Slot[] slots, ActiveRequest[] running) {
        this.scheduler = scheduler;
        this.slots = slots;
        this.running = running;
    }

    void cells(int cells) {
        if (cells < 0) {
            throw new IllegalArgumentException("pool cells: " + cells);
        }
        this.cells = cells;
    }

    /** Whether the slots share one pool. */
    boolean enabled() {
        return cells > 0;
    }

    int cells() {
        return cells;
    }

    long evictions() {
        return evictions;
    }

    long refusals() {
        return refusals;
    }

    /** A request refused at admission for lack of cells. */
    void refused() {
        refusals++;
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
    int free(boolean runningOnly) {
        return cells - held(runningOnly);
    }

    /** Whether a prompt of {@code length} tokens and its first generated token fit beside the running requests. */
    boolean fits(int length) {
        return length + 1 <= free(true);
    }

    /**
     * Evicts idle slots' cells, least recently used first, until {@code need} cells are free; each is
     * offered to the host prompt cache first, so the prefix survives there.
     *
     * @return whether {@code need} cells are free now
     */
    boolean makeRoom(int need) {
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
            LOG.debug("evicting idle slot {}'s {} cells for an active request", victim, slots[victim].cached());
            scheduler.evict(victim);
            evictions++;
        }
        return true;
    }

    /**
     * Makes room for the next token of every request decoding this step: idle slots' cells first;
     * when they do not suffice, the newest request ends with 503 until the rest fit.
     *
     * @return whether a request was ended
     */
    boolean reclaimForDecode(List<AdapterScale> adapters) {
        boolean ended = false;
        while (true) {
            int need = 0;
            for (ActiveRequest r : running) {
                if (Scheduler.decodesThisStep(r, adapters)) {
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
    int prefillRoom(List<AdapterScale> adapters, TokenBatch batch) {
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

    boolean noneDecoding() {
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
    void failNewest(String why) {
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
        refusals++;
        LOG.info("request {} in slot {} ends: {}", r.request.id(), newest, why);
        scheduler.fail(
                newest,
                r.generation,
                new EngineException(
                        EngineException.Code.UNAVAILABLE,
                        "the KV pool's " + cells + " cells are full: " + why + "; retry when others finish"));
    }
}
