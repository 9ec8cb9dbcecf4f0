package forge.sampler.loopguard;

import forge.api.sampler.SamplerStage;
import forge.api.sampler.TokenCandidates;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * One sequence's loop guard. It counts, for every run of {@code n - 1} generated tokens, which
 * tokens followed it and how often (within the last {@code window} tokens); before each token, it
 * bans those that followed the current last {@code n - 1} tokens {@code repeats - 1} times already.
 * It never bans every candidate left: a step where it would do so is left alone.
 *
 * <p>Cost per token: one map update in {@link #accept}, one lookup in {@link #apply}, and a pass
 * over the candidates only in the rare step that has something to ban.
 */
public final class LoopGuard implements SamplerStage {

    private final int n;
    private final int repeats;
    private final int window;
    /** The generated tokens, oldest first; {@code length} of them are in use. */
    private int[] history = new int[256];

    private int length;
    /** A run of n - 1 tokens, to the tokens that followed it and how often. */
    private final Map<Run, Map<Integer, Integer>> followers = new HashMap<>();

    /**
     * @param n       the run length, at least 2
     * @param repeats the refused occurrence, at least 2
     * @param window  how many recent tokens count; 0 for all
     */
    public LoopGuard(int n, int repeats, int window) {
        if (n < 2 || repeats < 2 || window < 0 || (window != 0 && window < n)) {
            throw new IllegalArgumentException("n " + n + ", repeats " + repeats + ", window " + window);
        }
        this.n = n;
        this.repeats = repeats;
        this.window = window;
    }

    @Override
    public void apply(TokenCandidates candidates) {
        if (length < n - 1) {
            return;
        }
        Map<Integer, Integer> next = followers.get(new Run(history, length - (n - 1), n - 1));
        if (next == null) {
            return;
        }
        int banned = 0;
        for (int count : next.values()) {
            if (count >= repeats - 1) {
                banned++;
            }
        }
        if (banned == 0) {
            return;
        }
        // The candidates are not indexed by token once an earlier stage sorted or cut them: one pass.
        int size = candidates.size();
        int alive = 0;
        boolean[] hit = new boolean[size];
        for (int i = 0; i < size; i++) {
            Integer count = next.get(candidates.token(i));
            if (count != null && count >= repeats - 1) {
                hit[i] = true;
            } else if (candidates.logit(i) != Float.NEGATIVE_INFINITY) {
                alive++;
            }
        }
        if (alive == 0) {
            return; // banning would leave nothing to sample: a loop is better than no answer
        }
        for (int i = 0; i < size; i++) {
            if (hit[i]) {
                candidates.ban(i);
            }
        }
    }

    @Override
    public void accept(int token) {
        if (length == history.length) {
            if (window != 0 && length >= 2 * window) {
                // Keep the last window tokens only: the rest no longer count.
                int drop = length - window;
                history = Arrays.copyOfRange(history, drop, drop + Math.max(history.length, 2 * window));
                length -= drop;
            } else {
                history = Arrays.copyOf(history, history.length * 2);
            }
        }
        history[length++] = token;
        if (length >= n) {
            count(length - n, +1);
        }
        if (window != 0 && length - 1 - window >= 0 && length - 1 - window <= length - 1 - n) {
            // The window moved on by one: the n-gram that started just before it no longer counts.
            count(length - 1 - window, -1);
        }
    }

    /** Adds {@code delta} to the count of the n-gram that starts at {@code start}. */
    private void count(int start, int delta) {
        Run run = new Run(Arrays.copyOfRange(history, start, start + n - 1), 0, n - 1);
        int token = history[start + n - 1];
        if (delta > 0) {
            followers.computeIfAbsent(run, k -> new HashMap<>()).merge(token, delta, Integer::sum);
            return;
        }
        Map<Integer, Integer> next = followers.get(run);
        if (next != null && next.merge(token, delta, Integer::sum) <= 0) {
            next.remove(token);
            if (next.isEmpty()) {
                followers.remove(run);
            }
        }
    }

    @Override
    public void reset() {
        length = 0;
        followers.clear();
    }

    /** A run of tokens as a map key: {@code length} tokens of {@code tokens} from {@code from}. */
    private static final class Run {
        private final int[] tokens;
        private final int from;
        private final int length;
        private final int hash;

        Run(int[] tokens, int from, int length) {
            this.tokens = tokens;
            this.from = from;
            this.length = length;
            int h = 1;
            for (int i = from; i < from + length; i++) {
                h = 31 * h + tokens[i];
            }
            this.hash = h;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Run r
                    && r.hash == hash
                    && Arrays.equals(tokens, from, from + length, r.tokens, r.from, r.from + r.length);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
