package forge.runtime.engine;

import static forge.runtime.engine.SlotViews.free;
import static forge.runtime.engine.SlotViews.running;
import static forge.runtime.engine.SlotViews.tokens;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.runtime.engine.SlotView.Activity;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** What a request does with the cache: keep, copy, or wait. */
class PrefixPlanTest {

    private static final int[] PROMPT = tokens(1, 2, 3, 4, 5, 6);

    /** The request, admitted to slot 0 (a running slot whose view is its own). */
    private static SlotView self(int... cells) {
        return running(0, cells, Activity.PREFILLING, PROMPT, 0);
    }

    private static PrefixPlan plan(List<SlotView> slots) {
        return PrefixPlan.of(0, PROMPT, false, true, slots);
    }

    @Test
    void theSlotsOwnCellsAreKeptUpToWhereThePromptDiffers() {
        assertEquals(new PrefixPlan.Keep(3), plan(List.of(self(1, 2, 3, 9, 9))));
        assertEquals(new PrefixPlan.Keep(0), plan(List.of(self())));
        assertEquals(new PrefixPlan.Keep(0), plan(List.of(self(7, 2, 3))));
    }

    @Test
    void thePromptsLastTokenIsAlwaysComputedForItsLogits() {
        assertEquals(new PrefixPlan.Keep(5), plan(List.of(self(1, 2, 3, 4, 5, 6, 7))));
        assertEquals(new PrefixPlan.Keep(5), plan(List.of(self(1, 2, 3, 4, 5, 6))));
        assertEquals(
                new PrefixPlan.Keep(0),
                PrefixPlan.of(
                        0, tokens(1), false, true, List.of(running(0, tokens(1), Activity.PREFILLING, tokens(1), 0))),
                "a one-token prompt computes its token");
    }

    @Test
    void aScoredPromptTakesNothingFromAnyCache() {
        List<SlotView> slots = List.of(
                self(1, 2, 3, 4),
                free(1, tokens(1, 2, 3, 4, 5), 0),
                running(2, tokens(), Activity.PREFILLING, tokens(1, 2, 3, 4, 5, 6), 0));
        assertEquals(new PrefixPlan.Keep(0), PrefixPlan.of(0, PROMPT, true, true, slots));
    }

    @Test
    void aLongerPrefixInAnotherSlotIsCopiedWhateverThatSlotDoes() {
        for (Activity activity : Activity.values()) {
            SlotView other = activity == Activity.FREE
                    ? free(1, tokens(1, 2, 3, 4), 0)
                    : running(1, tokens(1, 2, 3, 4), activity, tokens(8), activity == Activity.DECODING ? 1 : 0);
            assertEquals(new PrefixPlan.Copy(1, 4), plan(List.of(self(1, 2), other)), activity.toString());
        }
    }

    @Test
    void theOwnCellsWinAmongEqualsThenTheFirstSlot() {
        assertEquals(
                new PrefixPlan.Keep(3),
                plan(List.of(self(1, 2, 3), free(1, tokens(1, 2, 3), 0))),
                "no copy for nothing");
        assertEquals(
                new PrefixPlan.Copy(1, 4),
                plan(List.of(self(1), free(1, tokens(1, 2, 3, 4), 0), free(2, tokens(1, 2, 3, 4, 8), 0))));
        assertEquals(
                new PrefixPlan.Copy(2, 5),
                plan(List.of(self(1), free(1, tokens(1, 2, 3, 4), 0), free(2, tokens(1, 2, 3, 4, 5, 6), 0))),
                "the longest, even past the last prompt token's position: no more than all but the last token");
    }

    @Test
    void aPrefillingSlotWhosePromptSharesMuchMoreIsWaitedFor() {
        SlotView leader = running(1, tokens(), Activity.PREFILLING, tokens(1, 2, 3, 4, 5, 9, 9, 9), 0);
        assertEquals(new PrefixPlan.Wait(1, 5), plan(List.of(self(), leader)), "5 tokens saved, 8 still to compute");
        assertEquals(
                new PrefixPlan.Keep(0),
                PrefixPlan.of(0, PROMPT, false, false, List.of(self(), leader)),
                "not when waiting is not allowed (a wait just ended)");
        SlotView partway = running(1, tokens(1, 2), Activity.PREFILLING, tokens(1, 2, 3, 4, 5, 9, 9, 9), 2);
        assertEquals(
                new PrefixPlan.Copy(1, 2),
                PrefixPlan.of(0, PROMPT, false, false, List.of(self(), partway)),
                "then what the leader has computed so far is copied");
    }

    @Test
    void aWaitThatSavesLessThanHalfOfWhatTheLeaderComputesIsNotTaken() {
        // The caches already hold 1 2 3; the leader's prompt shares 1 more, of 20 it still computes.
        int[] longPrompt = new int[24];
        System.arraycopy(tokens(1, 2, 3, 4), 0, longPrompt, 0, 4);
        SlotView leader = running(1, tokens(1, 2, 3), Activity.PREFILLING, longPrompt, 3);
        assertEquals(new PrefixPlan.Copy(1, 3), plan(List.of(self(), leader)));
        assertEquals(
                new PrefixPlan.Wait(1, 4),
                plan(List.of(self(), running(1, tokens(1, 2, 3), Activity.PREFILLING, longPrompt, 22))),
                "the same leader near the end of its prompt is worth waiting for");
    }

    @Test
    void onlyAPrefillingSlotLeads() {
        int[] theirs = tokens(1, 2, 3, 4, 5, 9);
        assertEquals(
                new PrefixPlan.Keep(0),
                plan(List.of(self(), running(1, tokens(), Activity.WAITING, theirs, 0))),
                "one that waits itself computes nothing");
        assertEquals(
                new PrefixPlan.Copy(1, 5),
                plan(List.of(self(), running(1, tokens(1, 2, 3, 4, 5, 9, 7), Activity.DECODING, theirs, 6))),
                "one that decodes has its prompt cached: copied");
        assertEquals(new PrefixPlan.Keep(0), plan(List.of(self(), free(1, tokens(), 0))));
    }

    @Test
    void amongLeadersTheOneSharingMostThenTheFirst() {
        SlotView two = running(1, tokens(), Activity.PREFILLING, tokens(1, 2, 9, 9), 0);
        SlotView four = running(2, tokens(), Activity.PREFILLING, tokens(1, 2, 3, 4, 9, 9), 0);
        SlotView fourToo = running(3, tokens(), Activity.PREFILLING, tokens(1, 2, 3, 4, 8), 0);
        assertEquals(new PrefixPlan.Wait(2, 4), plan(List.of(self(), two, four, fourToo)));
        SlotView fourFirst = running(2, tokens(), Activity.PREFILLING, tokens(1, 2, 3, 4, 8), 0);
        SlotView fourAfter = running(3, tokens(), Activity.PREFILLING, tokens(1, 2, 3, 4, 9, 9), 0);
        assertEquals(
                new PrefixPlan.Wait(2, 4),
                plan(List.of(self(), two, fourFirst, fourAfter)),
                "the lower id among equals");
        // One that shares more but is not worth waiting for does not hide one that is.
        int[] far = new int[40];
        System.arraycopy(tokens(1, 2, 3, 4, 5), 0, far, 0, 5);
        SlotView longWay = running(1, tokens(), Activity.PREFILLING, far, 0);
        SlotView near = running(2, tokens(), Activity.PREFILLING, tokens(1, 2, 3, 9), 0);
        assertEquals(new PrefixPlan.Wait(2, 3), plan(List.of(self(), longWay, near)));
    }

    @Test
    void theWaitIsMeasuredAgainstTheBestCacheNotTheSlotsOwn() {
        SlotView cache = free(1, tokens(1, 2, 3, 4), 0);
        SlotView leader = running(2, tokens(1), Activity.PREFILLING, tokens(1, 2, 3, 4, 5, 9, 9, 9, 9), 1);
        // 1 token more than the cache, of 8 the leader still computes: copy now.
        assertEquals(new PrefixPlan.Copy(1, 4), plan(List.of(self(), cache, leader)));
    }

    /**
     * On random slots, the plan is what the rules say, restated: the longest cached prefix (own
     * first, then the lowest id, then the host cache's) within all but the prompt's last token, or
     * a wait for the prefilling slot whose prompt shares most beyond it, among those worth waiting
     * for.
     */
    @Test
    void randomSlotsAlwaysGetTheRulePlan() {
        Random random = new Random(18);
        int keeps = 0;
        int copies = 0;
        int waits = 0;
        int restores = 0;
        for (int run = 0; run < 5000; run++) {
            List<SlotView> slots = SlotViews.slots(random, false);
            int self = random.nextInt(slots.size());
            int[] prompt = SlotViews.sequence(random, 30);
            boolean scored = random.nextInt(8) == 0;
            boolean mayWait = random.nextInt(4) != 0;
            int usable = scored ? 0 : prompt.length - 1;
            int hosted = random.nextInt(3) == 0 ? random.nextInt(Math.max(1, prompt.length)) : 0;
            PrefixPlan plan = PrefixPlan.of(self, prompt, scored, mayWait, slots, hosted);
            String where = "run " + run + ": self " + self + ", hosted " + hosted + ", " + slots;
            int best = slots.get(self).cachedPrefix(prompt, usable);
            int source = self;
            for (SlotView s : slots) {
                if (s.cachedPrefix(prompt, usable) > best) {
                    best = s.cachedPrefix(prompt, usable);
                    source = s.id();
                }
            }
            boolean restore = !scored && hosted > best;
            if (restore) {
                best = hosted;
            }
            int leader = -1;
            int leaderPrefix = best;
            for (SlotView s : slots) {
                int shares = s.promptPrefix(prompt, usable);
                boolean candidate = mayWait
                        && s.id() != self
                        && s.activity() == Activity.PREFILLING
                        && shares > best
                        && PrefixWait.worthWaiting(shares - best, s.prompt().length - s.prefilled());
                if (candidate && shares > leaderPrefix) {
                    leader = s.id();
                    leaderPrefix = shares;
                }
            }
            PrefixPlan expected = leader >= 0
                    ? new PrefixPlan.Wait(leader, leaderPrefix)
                    : restore
                            ? new PrefixPlan.Restore(best)
                            : source == self ? new PrefixPlan.Keep(best) : new PrefixPlan.Copy(source, best);
            assertEquals(expected, plan, where);
            switch (plan) {
                case PrefixPlan.Keep k -> keeps++;
                case PrefixPlan.Copy c -> copies++;
                case PrefixPlan.Wait w -> waits++;
                case PrefixPlan.Restore h -> restores++;
            }
            if (plan instanceof PrefixPlan.Copy c) {
                assertTrue(
                        c.tokens() <= usable
                                && c.tokens() <= slots.get(c.source()).cached(),
                        where);
            }
        }
        assertTrue(
                keeps > 500 && copies > 500 && waits > 100 && restores > 100,
                "each plan is drawn often: " + keeps + "/" + copies + "/" + waits + "/" + restores);
    }

    @Test
    void aWaitNamesTheLeadersSlotAndTheCellsToAwait() {
        PrefixPlan.Wait w = assertInstanceOf(
                PrefixPlan.Wait.class,
                plan(List.of(self(), running(1, tokens(), Activity.PREFILLING, tokens(1, 2, 3, 4), 0))));
        assertEquals(1, w.leader());
        assertEquals(4, w.tokens());
    }

    @Test
    void theHostCacheWinsOnlyWithALongerPrefix() {
        SlotView cache = SlotView.free(1, tokens(1, 2, 3), 3, 5);
        assertEquals(new PrefixPlan.Restore(5), PrefixPlan.of(0, PROMPT, false, false, List.of(self(), cache), 5));
        assertEquals(
                new PrefixPlan.Copy(1, 3),
                PrefixPlan.of(0, PROMPT, false, false, List.of(self(), cache), 3),
                "a slot's copy among equals: it moves fewer bytes");
        assertEquals(
                new PrefixPlan.Keep(0),
                PrefixPlan.of(0, PROMPT, true, false, List.of(self(), cache), 5),
                "a scored prompt takes nothing from a cache");
    }
}
