package forge.runtime.engine;

import java.util.List;

/**
 * Which free slot a request gets: the one whose cells share the longest prefix with its prompt,
 * and among equals the least recently used, so that the other slots' caches live longer (the
 * next request with their prefix finds them). Pure: views in, a slot id out.
 */
final class SlotChoice {

    private SlotChoice() {}

    /**
     * @param prompt the request's prompt
     * @param slots  every slot, in id order
     * @return the id of the slot to run it in
     * @throws IllegalArgumentException when no slot is free
     */
    static int choose(int[] prompt, List<SlotView> slots) {
        SlotView best = null;
        int bestPrefix = -1;
        for (SlotView slot : slots) {
            if (slot.activity() != SlotView.Activity.FREE) {
                continue;
            }
            int prefix = slot.cachedPrefix(prompt, prompt.length);
            if (prefix > bestPrefix || (prefix == bestPrefix && slot.lastUsed() < best.lastUsed())) {
                best = slot;
                bestPrefix = prefix;
            }
        }
        if (best == null) {
            throw new IllegalArgumentException("no free slot among " + slots.size());
        }
        return best.id();
    }
}
