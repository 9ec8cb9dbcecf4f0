package forge.runtime.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Slot views for the policy tests: written by hand, or drawn at random from a few shared prefixes. */
final class SlotViews {

    private SlotViews() {}

    static int[] tokens(int... t) {
        return t;
    }

    static SlotView free(int id, int[] cells, long lastUsed) {
        return SlotView.free(id, cells, cells.length, lastUsed);
    }

    static SlotView running(int id, int[] cells, SlotView.Activity activity, int[] prompt, int prefilled) {
        return new SlotView(id, cells, cells.length, 0, activity, prompt, prefilled);
    }

    /** Token sequences that share prefixes often: each a random choice among a few stems, then a short tail. */
    static int[] sequence(Random random, int maxLength) {
        int stem = random.nextInt(4);
        int length = 1 + random.nextInt(maxLength);
        int[] t = new int[length];
        int shared = random.nextInt(length + 1);
        for (int i = 0; i < length; i++) {
            t[i] = i < shared ? stem * 100 + i : random.nextInt(3);
        }
        return t;
    }

    /** A random set of slots, in id order, at least one of them free when {@code oneFree}. */
    static List<SlotView> slots(Random random, boolean oneFree) {
        int n = 1 + random.nextInt(6);
        int free = random.nextInt(n);
        List<SlotView> slots = new ArrayList<>();
        for (int id = 0; id < n; id++) {
            int[] cells = sequence(random, 24);
            int cached = random.nextInt(cells.length + 1);
            SlotView.Activity activity = (oneFree && id == free) || random.nextInt(3) == 0
                    ? SlotView.Activity.FREE
                    : SlotView.Activity.values()[1 + random.nextInt(3)];
            long lastUsed = random.nextInt(5);
            if (activity == SlotView.Activity.FREE) {
                slots.add(SlotView.free(id, cells, cached, lastUsed));
            } else {
                int[] prompt = sequence(random, 24);
                int prefilled = activity == SlotView.Activity.DECODING
                        ? prompt.length
                        : activity == SlotView.Activity.WAITING ? 0 : random.nextInt(prompt.length + 1);
                slots.add(new SlotView(id, cells, cached, lastUsed, activity, prompt, prefilled));
            }
        }
        return slots;
    }
}
