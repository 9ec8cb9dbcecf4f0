package forge.runtime.engine;

import java.util.List;

/**
 * What a request admitted to a slot does with the KV cache: keep that slot's own cached prefix,
 * copy a longer one from another slot, restore a still longer one from the host prompt cache
 * ({@link PromptCache}), or wait for another slot that is computing a still longer one. Only the
 * rest of the prompt is then prefilled. Pure: {@link #of} takes views and returns the decision; the
 * scheduler carries it out ({@code llama_memory_seq_rm}, {@code _seq_cp},
 * {@code llama_state_seq_set_data_ext}).
 */
sealed interface PrefixPlan {

    /** Keep the slot's first {@code tokens} cells and drop the rest. */
    record Keep(int tokens) implements PrefixPlan {}

    /** Replace the slot's cells by slot {@code source}'s first {@code tokens}, busy or not. */
    record Copy(int source, int tokens) implements PrefixPlan {}

    /**
     * Replace the slot's cells by the host cache's entry that holds the prompt's first
     * {@code tokens} (the longest there), and keep those.
     */
    record Restore(int tokens) implements PrefixPlan {}

    /**
     * Compute nothing yet: slot {@code leader} is prefilling a prompt whose first {@code tokens}
     * tokens this prompt shares, more than any cache holds. Plan again, without waiting, once
     * {@link PrefixWait#isOver} says so.
     */
    record Wait(int leader, int tokens) implements PrefixPlan {}

    /** The plan for the request in slot {@code self} without a host cache. */
    static PrefixPlan of(int self, int[] prompt, boolean scored, boolean mayWait, List<SlotView> slots) {
        return of(self, prompt, scored, mayWait, slots, 0);
    }

    /**
     * The plan for the request in slot {@code self}.
     *
     * <p>The prompt's last token is always computed, for the logits that give the first sampled
     * token; a scored prompt needs the logits of every position, so none of it comes from a cache.
     * The longest cached prefix wins, the slot's own among equals (no copy), then the lowest slot
     * id, then the host cache's (a restore copies the most bytes). A wait is for a prefilling slot (not itself waiting) whose prompt shares more than that
     * cache and is {@link PrefixWait#worthWaiting} the tokens it saves; among several such, the one
     * sharing most, the lowest id among equals.
     *
     * @param self    the slot the request was admitted to
     * @param prompt  its prompt
     * @param scored  whether it scores its prompt
     * @param mayWait whether it may wait (not when a wait just ended)
     * @param slots   every slot, in id order
     * @param hosted  how many of the prompt's first {@code prompt.length - 1} tokens the host cache's
     *                best entry holds (0 when none, or no host cache)
     */
    static PrefixPlan of(int self, int[] prompt, boolean scored, boolean mayWait, List<SlotView> slots, int hosted) {
        int usable = scored ? 0 : prompt.length - 1;
        int own = slots.get(self).cachedPrefix(prompt, usable);
        int source = -1;
        int best = own;
        for (SlotView other : slots) {
            if (other.id() == self) {
                continue;
            }
            int prefix = other.cachedPrefix(prompt, usable);
            if (prefix > best) {
                best = prefix;
                source = other.id();
            }
        }
        boolean restore = !scored && hosted > best;
        if (restore) {
            best = hosted;
        }
        if (mayWait) {
            int leader = -1;
            int ahead = best;
            for (SlotView other : slots) {
                if (other.id() == self || other.activity() != SlotView.Activity.PREFILLING) {
                    continue;
                }
                int prefix = other.promptPrefix(prompt, usable);
                if (prefix > ahead
                        && PrefixWait.worthWaiting(prefix - best, other.prompt().length - other.prefilled())) {
                    ahead = prefix;
                    leader = other.id();
                }
            }
            if (leader >= 0) {
                return new Wait(leader, ahead);
            }
        }
        return restore ? new Restore(best) : source < 0 ? new Keep(own) : new Copy(source, best);
    }
}
