package forge.sampler.loopguard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.sampler.TokenCandidates;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoopGuardTest {

    /** The whole vocabulary of {@code size} tokens, logit = token id, like the backend's unsorted array. */
    static final class Candidates implements TokenCandidates {
        final int[] tokens;
        final float[] logits;

        Candidates(int size) {
            tokens = new int[size];
            logits = new float[size];
            for (int i = 0; i < size; i++) {
                tokens[i] = i;
                logits[i] = i;
            }
        }

        Candidates(int[] tokens) {
            this.tokens = tokens;
            this.logits = new float[tokens.length];
        }

        public int size() {
            return tokens.length;
        }

        public int token(int i) {
            return tokens[i];
        }

        public float logit(int i) {
            return logits[i];
        }

        public void logit(int i, float v) {
            logits[i] = v;
        }

        List<Integer> banned() {
            List<Integer> out = new ArrayList<>();
            for (int i = 0; i < tokens.length; i++) {
                if (logits[i] == Float.NEGATIVE_INFINITY) {
                    out.add(tokens[i]);
                }
            }
            return out;
        }
    }

    private static List<Integer> bannedAfter(LoopGuard g, int... tokens) {
        for (int t : tokens) {
            g.accept(t);
        }
        Candidates c = new Candidates(10);
        g.apply(c);
        return c.banned();
    }

    @Test
    void bansTheTokenThatWouldRepeatARunTheKthTime() {
        // Trigrams, the second occurrence refused: after "1 2 3 1 2", 3 would write "1 2 3" again.
        assertEquals(List.of(3), bannedAfter(new LoopGuard(3, 2, 0), 1, 2, 3, 1, 2));
        // The third occurrence refused: one repeat is allowed, the next is not.
        LoopGuard g = new LoopGuard(3, 3, 0);
        assertEquals(List.of(), bannedAfter(g, 1, 2, 3, 1, 2));
        assertEquals(List.of(3), bannedAfter(g, 3, 1, 2));
    }

    @Test
    void leavesEverythingElseAlone() {
        assertEquals(List.of(), bannedAfter(new LoopGuard(3, 2, 0), 1, 2, 3, 4, 5, 6));
        assertEquals(List.of(), bannedAfter(new LoopGuard(3, 2, 0), 1, 2), "too little history");
        Candidates c = new Candidates(10);
        new LoopGuard(3, 2, 0).apply(c);
        for (int i = 0; i < 10; i++) {
            assertEquals(i, c.logit(i), "untouched");
        }
    }

    @Test
    void findsTokensInACutAndSortedArray() {
        LoopGuard g = new LoopGuard(2, 2, 0);
        for (int t : new int[] {7, 9, 7}) {
            g.accept(t);
        }
        Candidates c = new Candidates(new int[] {9, 4, 1});
        g.apply(c);
        assertEquals(List.of(9), c.banned());
    }

    @Test
    void neverBansTheLastCandidate() {
        LoopGuard g = new LoopGuard(2, 2, 0);
        for (int t : new int[] {5, 5}) {
            g.accept(t);
        }
        Candidates c = new Candidates(new int[] {5});
        g.apply(c);
        assertEquals(List.of(), c.banned(), "a loop is better than nothing to sample");
        Candidates two = new Candidates(new int[] {5, 6});
        two.logits[1] = Float.NEGATIVE_INFINITY; // an earlier stage banned the other
        g.apply(two);
        assertEquals(List.of(6), two.banned());
    }

    @Test
    void onlyTheWindowCounts() {
        LoopGuard g = new LoopGuard(2, 2, 4);
        // "1 2" then four other tokens: "1 2" left the window, so 2 after 1 is allowed again.
        assertEquals(List.of(), bannedAfter(g, 1, 2, 3, 4, 5, 1));
        LoopGuard near = new LoopGuard(2, 2, 4);
        assertEquals(List.of(2), bannedAfter(near, 1, 2, 3, 1));
        // Long generations compact the history and still count right.
        LoopGuard longRun = new LoopGuard(3, 2, 8);
        int[] tokens = new int[5000];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = 100 + i; // never repeats
        }
        assertEquals(List.of(), bannedAfter(longRun, tokens));
        int[] tail = Arrays.copyOfRange(tokens, tokens.length - 4, tokens.length - 2);
        Candidates c = new Candidates(6000);
        for (int t : tail) {
            longRun.accept(t);
        }
        longRun.apply(c);
        assertEquals(List.of(tokens[tokens.length - 2]), c.banned(), "a repeat inside the window is still seen");
    }

    @Test
    void resetForgetsTheHistory() {
        LoopGuard g = new LoopGuard(3, 2, 0);
        for (int t : new int[] {1, 2, 3, 1, 2}) {
            g.accept(t);
        }
        g.reset();
        assertEquals(List.of(), bannedAfter(g, 1, 2));
    }

    @Test
    void theProviderChecksItsArguments() {
        LoopGuardProvider p = new LoopGuardProvider();
        var info = p.stages().getFirst();
        assertEquals("loop_guard", info.name());
        assertTrue(p.create("loop_guard", info.defaults()) instanceof LoopGuard);
        var e = assertThrows(
                IllegalArgumentException.class,
                () -> p.create(
                        "loop_guard",
                        new forge.api.sampler.StageArguments(java.util.Map.of(
                                "loop_guard_n", 8L, "loop_guard_repeats", 3L, "loop_guard_window", 4L))));
        assertTrue(e.getMessage().contains("loop_guard_window"), e.getMessage());
    }
}
