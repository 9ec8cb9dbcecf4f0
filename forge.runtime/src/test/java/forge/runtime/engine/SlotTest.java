package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.sampler.SamplingParams;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A slot's bookkeeping of the tokens its KV cells hold. */
class SlotTest {

    @Test
    void appendedPositionsFollowTheCachedOnesAndCountOnceComputed() {
        Slot slot = new Slot(3, 16);
        assertEquals(0, slot.append(7));
        assertEquals(1, slot.append(8));
        assertTrue(slot.inBatch());
        assertEquals(0, slot.cached(), "not in the cache before the decode");
        slot.computed();
        assertEquals(2, slot.cached());
        assertFalse(slot.inBatch());
        assertEquals(2, slot.append(9));
        slot.computed();
        assertArrayEquals(new int[] {7, 8, 9}, Arrays.copyOf(view(slot).cells(), slot.cached()));
    }

    @Test
    void keptCopiedAndForgottenCells() {
        Slot source = new Slot(0, 16);
        for (int t : new int[] {1, 2, 3, 4}) {
            source.append(t);
        }
        source.computed();
        Slot target = new Slot(1, 16);
        target.append(9);
        target.computed();
        target.copyFrom(source, 3);
        assertEquals(3, target.cached());
        assertArrayEquals(new int[] {1, 2, 3}, Arrays.copyOf(view(target).cells(), 3));
        assertEquals(3, target.append(5), "prefill goes on after the copy");
        target.computed();
        target.keep(2);
        assertEquals(2, target.cached());
        target.append(6);
        target.forget();
        assertEquals(0, target.cached());
        assertFalse(target.inBatch(), "what was in flight is gone too");
        assertEquals(4, source.cached(), "the source keeps its cells");
    }

    @Test
    void itsViewSaysWhatItsRequestDoes() {
        Slot slot = new Slot(2, 16);
        slot.lastUsed = 5;
        SlotView free = view(slot);
        assertEquals(SlotView.Activity.FREE, free.activity());
        assertEquals(2, free.id());
        assertEquals(5, free.lastUsed());
        assertEquals(0, free.prompt().length);

        FakeContext context = new FakeContext(16, 1, 8);
        GenerationRequest r =
                new GenerationRequest("r", new int[] {1, 2, 3}, SamplingParams.GREEDY, 2, List.of(), Set.of(), false);
        ActiveRequest active =
                new ActiveRequest(new Generation(r), context.sampler(r.sampling()), context, new FakeVocabulary(), 16);
        active.reuse(2);
        SlotView prefilling = slot.view(active);
        assertEquals(SlotView.Activity.PREFILLING, prefilling.activity());
        assertSame(r.prompt(), prefilling.prompt());
        assertEquals(2, prefilling.prefilled());
        active.waiting = new ActiveRequest.Waiting(0, active, 3);
        assertEquals(SlotView.Activity.WAITING, slot.view(active).activity());
        active.waiting = null;
        active.startDecoding();
        assertEquals(SlotView.Activity.DECODING, slot.view(active).activity());
    }

    private static SlotView view(Slot slot) {
        return slot.view(null);
    }
}
