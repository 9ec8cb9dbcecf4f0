package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.MediaTokens;
import forge.api.sampler.SamplingParams;
import forge.api.template.ChatImage;
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
    void anMRopeChunkTakesACellPerEmbeddingAndFewerPositionsWhereverItsCellsGo() {
        String cat = ChatImage.sha256("cat".getBytes());
        int[] prompt = {1, 2, -5, -6, -7, -8, -9, -10, 3, 4};
        Slot slot = new Slot(0, 32);
        slot.append(1);
        slot.append(2);
        assertEquals(2, slot.appendMedia(prompt, 2, 6, 2), "the chunk starts at the next position");
        assertEquals(4, slot.append(3), "6 cells later, 2 positions later");
        slot.append(4);
        slot.computed();
        assertEquals(10, slot.cached(), "cells, not positions");
        assertEquals(6, slot.position(10));
        assertEquals(2, slot.position(2), "a cut before the chunk is at its first position");
        assertEquals(4, slot.position(8), "a cut after it is at its end");
        Slot copy = new Slot(1, 32);
        copy.copyFrom(slot, 9);
        assertEquals(5, copy.position(9), "positions travel with a copied prefix");
        assertEquals(5, copy.append(4));
        Slot restored = new Slot(2, 32);
        restored.restore(prompt, List.of(new MediaTokens.Span(cat, 2, 6, false, 2)));
        assertEquals(6, restored.position(10), "a restored entry is laid out from the request's media");
        assertEquals(4, restored.position(8));
        Slot plain = new Slot(3, 32);
        plain.append(1);
        plain.appendMedia(prompt, 2, 6, 6);
        assertEquals(7, plain.position(7), "one position per embedding: positions are cells");
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
