package forge.runtime.engine;

import static forge.runtime.engine.SlotViews.free;
import static forge.runtime.engine.SlotViews.running;
import static forge.runtime.engine.SlotViews.tokens;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Which free slot a request gets. */
class SlotChoiceTest {

    private static final int[] PROMPT = tokens(1, 2, 3, 4, 5);

    @Test
    void theFreeSlotSharingTheLongestPrefixWins() {
        assertEquals(
                1,
                SlotChoice.choose(
                        PROMPT,
                        List.of(free(0, tokens(1, 2), 0), free(1, tokens(1, 2, 3, 9), 5), free(2, tokens(7), 0))));
    }

    @Test
    void aBusySlotIsNeverChosenHoweverMuchItShares() {
        assertEquals(
                1,
                SlotChoice.choose(
                        PROMPT,
                        List.of(
                                running(0, tokens(1, 2, 3, 4, 5), SlotView.Activity.DECODING, tokens(1, 2, 3, 4, 5), 5),
                                free(1, tokens(9), 0))));
        assertEquals(
                2,
                SlotChoice.choose(
                        PROMPT,
                        List.of(
                                running(0, tokens(1, 2, 3), SlotView.Activity.WAITING, tokens(1, 2, 3, 4), 0),
                                running(1, tokens(1, 2, 3), SlotView.Activity.PREFILLING, tokens(1, 2, 3, 4), 2),
                                free(2, tokens(), 0))));
    }

    @Test
    void amongEqualsTheLeastRecentlyUsedWinsSoOtherCachesLiveLonger() {
        assertEquals(
                2,
                SlotChoice.choose(
                        PROMPT,
                        List.of(free(0, tokens(1, 2, 8), 7), free(1, tokens(1, 2, 9), 4), free(2, tokens(1, 2), 3))));
        assertEquals(
                0,
                SlotChoice.choose(
                        PROMPT, List.of(free(0, tokens(6), 1), free(1, tokens(), 2), free(2, tokens(7, 7), 3))),
                "nothing shared: the oldest");
        assertEquals(
                0,
                SlotChoice.choose(PROMPT, List.of(free(0, tokens(), 0), free(1, tokens(), 0))),
                "never used: the first");
    }

    @Test
    void onlyTheCachedCellsCountAndThePromptsLastTokenToo() {
        // Cells beyond what a slot caches are stale; the whole prompt counts (reuse stops short of the last token
        // later).
        assertEquals(
                1,
                SlotChoice.choose(
                        PROMPT, List.of(SlotView.free(0, tokens(1, 2, 3, 4), 2, 0), free(1, tokens(1, 2, 3), 1))));
        assertEquals(
                1,
                SlotChoice.choose(
                        PROMPT, List.of(free(0, tokens(1, 2, 3, 4), 0), free(1, tokens(1, 2, 3, 4, 5, 6), 1))));
    }

    @Test
    void withNoFreeSlotThereIsNoChoice() {
        assertThrows(
                IllegalArgumentException.class,
                () -> SlotChoice.choose(
                        PROMPT, List.of(running(0, tokens(), SlotView.Activity.DECODING, tokens(1), 1))));
    }

    /** On random slots: the choice is free, shares most among the free, and is the oldest, then the first, among equals. */
    @Test
    void randomSlotsAlwaysGetTheRuleChoice() {
        Random random = new Random(20);
        for (int run = 0; run < 2000; run++) {
            List<SlotView> slots = SlotViews.slots(random, true);
            int[] prompt = SlotViews.sequence(random, 30);
            SlotView chosen = slots.get(SlotChoice.choose(prompt, slots));
            String where = "run " + run + ": " + slots;
            assertEquals(SlotView.Activity.FREE, chosen.activity(), where);
            int prefix = chosen.cachedPrefix(prompt, prompt.length);
            for (SlotView other : slots) {
                if (other.activity() != SlotView.Activity.FREE || other == chosen) {
                    continue;
                }
                int theirs = other.cachedPrefix(prompt, prompt.length);
                assertTrue(
                        theirs < prefix
                                || theirs == prefix
                                        && (other.lastUsed() > chosen.lastUsed()
                                                || other.lastUsed() == chosen.lastUsed() && other.id() > chosen.id()),
                        where);
            }
        }
    }
}
