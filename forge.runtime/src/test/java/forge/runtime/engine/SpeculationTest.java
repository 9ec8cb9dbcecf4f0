package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The n-gram lookup that proposes drafts, on plain arrays. */
class SpeculationTest {

    private static int[] propose(Speculation s, int[] history, int max) {
        int[] draft = new int[s.draftMax()];
        int n = s.propose(history, history.length, max, draft);
        return Arrays.copyOf(draft, n);
    }

    @Test
    void theTokensAfterTheLatestEarlierOccurrenceOfTheLastNgramAreProposed() {
        Speculation s = new Speculation(2, 4, 0);
        // "1 2" occurs at 0 (followed by 3 4 5 6) and at 5 (followed by 7 8): the latest one wins.
        int[] history = {1, 2, 3, 4, 5, 1, 2, 7, 8, 9, 1, 2};
        assertArrayEquals(new int[] {7, 8, 9, 1}, propose(s, history, 4));
        assertArrayEquals(new int[] {7, 8}, propose(s, history, 2), "at most what the caller has room for");
    }

    @Test
    void aDraftStopsAtTheEndOfTheHistory() {
        Speculation s = new Speculation(2, 8, 0);
        assertArrayEquals(new int[] {3, 1, 2}, propose(s, new int[] {1, 2, 3, 1, 2}, 8));
        // A run of one token: the overlapping occurrence proposes one more of it.
        assertArrayEquals(new int[] {5}, propose(s, new int[] {4, 5, 5, 5}, 8));
    }

    @Test
    void nothingIsProposedWithoutAnOccurrenceOrBelowTheMinimumOrWithoutRoom() {
        Speculation s = new Speculation(3, 8, 0);
        assertArrayEquals(new int[0], propose(s, new int[] {1, 2, 3, 4, 1, 2, 5}, 8), "no earlier 1 2 5");
        assertArrayEquals(new int[0], propose(s, new int[] {1, 2, 3}, 8), "nothing before the n-gram");
        assertArrayEquals(new int[0], propose(s, new int[] {1, 2, 3, 9, 1, 2, 3}, 0), "no room");
        Speculation min = new Speculation(2, 8, 3);
        assertArrayEquals(new int[0], propose(min, new int[] {1, 2, 1, 2}, 8), "only 1 2 follows: shorter than 3");
        assertArrayEquals(new int[] {3, 4, 1, 2}, propose(min, new int[] {1, 2, 3, 4, 1, 2}, 8));
        assertArrayEquals(new int[0], propose(min, new int[] {1, 2, 3, 4, 1, 2}, 2), "room below the minimum");
        assertArrayEquals(new int[0], propose(Speculation.OFF, new int[] {1, 2, 1, 2}, 8));
    }

    @Test
    void settingsOutOfRangeAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Speculation(0, 4, 0));
        assertThrows(IllegalArgumentException.class, () -> new Speculation(2, -1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Speculation(2, 4, 5));
        assertThrows(IllegalArgumentException.class, () -> new Speculation(2, Speculation.LIMIT + 1, 0));
        assertEquals("none", Speculation.OFF.type());
        assertEquals("ngram-simple", Speculation.NGRAM.type());
    }
}
