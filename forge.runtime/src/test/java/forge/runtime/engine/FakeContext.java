package forge.runtime.engine;

import forge.api.SamplingException;
import forge.api.backend.AdapterScale;
import forge.api.backend.InferenceContext;
import forge.api.backend.MediaTokens;
import forge.api.backend.TokenBatch;
import forge.api.backend.TokenLogprobs;
import forge.api.backend.TokenSampler;
import forge.api.sampler.SamplingParams;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * A test double of a backend's {@link InferenceContext}, for the engine without llama.cpp. It
 * records every call, in order, as a line ({@link #calls()}); keeps the tokens each sequence's KV
 * cells hold, with a stream of {@code contextSize / seqMax} cells per sequence as the engine's
 * contexts have (or, unified, one pool of {@code contextSize} cells that every sequence may fill,
 * each sequence's cells counted as its own), and fails the test (an {@link AssertionError}) where
 * llama.cpp would misbehave: a position out of order, a full stream or pool, sampling where no
 * logits were computed; and samples scripted tokens. Cells and positions differ as with an M-RoPE
 * model: a media chunk of fewer positions than embeddings ({@code Span.positions()}) takes one cell
 * per embedding, all at its first position (the first of llama.cpp's M-RoPE dimensions), and
 * advances the next position by its positions only; every decode, copy and removal checks the
 * positions it is given against the cells' own, so an engine that took cells for positions fails.
 *
 * <p>The lines: {@code decode 0@4:12 0@5:13* 1@9:20*} (sequence@position:token, {@code *} where
 * logits are computed), {@code media 0@2:9f86d081 x6} (a media chunk of 6 embeddings decoded at
 * position 2; {@code x6 p2} when it takes 2 positions), {@code sampler 2} (the second sampler created), {@code sample 2 @1 -> 14}
 * (sampler, batch index, token), {@code close sampler 2}, {@code remove 0 [3,-1)},
 * {@code copy 1 -> 0 [0,12)}, {@code logprobs @1 14 top 2}, {@code save 0 (40)} (a sequence's
 * state, of 40 cells, saved), {@code restore 1 (40)} ({@code failed} when refused), {@code clear},
 * {@code idle}, {@code close}, {@code adapters [a@1.0, b@0.5]} (a set of LoRA adapters applied, written
 * only when it differs from the last, as llama.cpp changes nothing for the same set). A saved state is the sequence's tokens as bytes, behind a magic
 * number, so a restore checks what it is given as llama.cpp does.
 */
final class FakeContext implements InferenceContext {

    /** A scripted token that makes the sampler throw an unchecked exception (a bug in a sampler stage). */
    static final int THROW = -1;
    /** A scripted token that makes the sampler throw a {@link SamplingException} (a grammar that allows nothing). */
    static final int REFUSE = -2;
    /** What a sampler returns once its script is used up. */
    static final int FILLER = FakeVocabulary.A + 25; // 'z'

    private final int contextSize;
    private final int seqMax;
    /** One pool of {@code contextSize} cells for all sequences, as llama.cpp's {@code kv_unified}. */
    private final boolean unified;

    private final Batch batch;
    private final int[][] cells;
    private final int[] held;
    /** {@code positions[seq][i]}: the position of sequence {@code seq}'s cell {@code i}. */
    private final int[][] positions;
    /** The position the next text token of each sequence must take. */
    private final int[] next;

    private final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    private final Deque<int[]> scripts = new ArrayDeque<>();
    private int samplers;
    private int decodes;
    private List<AdapterScale> adapters = List.of();
    /** What the last decode computed logits for, by batch index. */
    private boolean[] logits = new boolean[0];

    private volatile IntConsumer beforeDecode = n -> {};
    private volatile boolean cannotTrim;
    private volatile boolean noLogprobs;
    private volatile RuntimeException samplerFailure;
    /** When set, samplers without a script return this function of the sampled position's cells. */
    private volatile java.util.function.ToIntFunction<int[]> model;
    /** The sequence and position of each index of the last decode, for {@link #model}. */
    private int[] lastSeq = new int[0];

    private int[] lastCell = new int[0];

    FakeContext(int contextSize, int seqMax, int batchCapacity) {
        this(contextSize, seqMax, batchCapacity, false);
    }

    FakeContext(int contextSize, int seqMax, int batchCapacity, boolean unified) {
        this.contextSize = contextSize;
        this.seqMax = seqMax;
        this.unified = unified;
        this.batch = new Batch(batchCapacity);
        this.cells = new int[seqMax][unified ? contextSize : contextSize / seqMax];
        this.held = new int[seqMax];
        this.positions = new int[seqMax][cells[0].length];
        this.next = new int[seqMax];
    }

    /** The cells all sequences hold together (a unified pool's fill). */
    synchronized int pooled() {
        return Arrays.stream(held).sum();
    }

    // ------------------------------------------------------------------ scripting

    /** The next sampler created returns these tokens, in order, then {@link #FILLER}. */
    synchronized FakeContext script(int... tokens) {
        scripts.add(tokens.clone());
        return this;
    }

    /**
     * Makes the samplers without a script act as a deterministic model: each samples
     * {@code next.applyAsInt(cells)}, where {@code cells} are the tokens its sequence's KV cells
     * hold up to and including the sampled batch index's position. What a sequence generates then
     * depends on its cells alone, so a cell that holds a wrong token (a rejected draft left in
     * place) changes the output.
     */
    FakeContext model(java.util.function.ToIntFunction<int[]> next) {
        model = next;
        return this;
    }

    /** Runs before each decode with its number (1 for the first, the warmup's when there is one); it may throw. */
    FakeContext beforeDecode(IntConsumer hook) {
        beforeDecode = hook;
        return this;
    }

    /** Makes removing a tail fail, as a recurrent or sliding-window memory does: only whole sequences go. */
    FakeContext cannotTrim() {
        cannotTrim = true;
        return this;
    }

    /** Makes {@link #logprobs} unsupported, as on a backend without them. */
    FakeContext noLogprobs() {
        noLogprobs = true;
        return this;
    }

    /** Makes the next {@link #sampler} calls throw this. */
    FakeContext failSamplers(RuntimeException e) {
        samplerFailure = e;
        return this;
    }

    // ------------------------------------------------------------------ observing

    /** Every call so far, in order. */
    List<String> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    /** The calls that start with {@code prefix} (such as {@code "decode"}), in order. */
    List<String> calls(String prefix) {
        return calls().stream().filter(c -> c.startsWith(prefix)).toList();
    }

    /** Forgets the calls so far. */
    void clearCalls() {
        calls.clear();
    }

    /** The tokens sequence {@code seq}'s KV cells hold, by position. */
    synchronized int[] cells(int seq) {
        return Arrays.copyOf(cells[seq], held[seq]);
    }

    /** Samplers created and not closed. */
    synchronized int openSamplers() {
        return calls("sampler ").size() - calls("close sampler").size();
    }

    // ------------------------------------------------------------------ InferenceContext

    @Override
    public int contextSize() {
        return contextSize;
    }

    @Override
    public int seqMax() {
        return seqMax;
    }

    @Override
    public TokenBatch batch() {
        return batch;
    }

    @Override
    public void adapters(List<AdapterScale> set) {
        if (!set.equals(adapters)) {
            adapters = List.copyOf(set);
            calls.add("adapters "
                    + set.stream()
                            .map(a -> a.adapter().path().getFileName() + "@" + a.scale())
                            .toList());
        }
    }

    @Override
    public void decode() {
        int n;
        synchronized (this) {
            n = ++decodes;
        }
        beforeDecode.accept(n);
        synchronized (this) {
            StringBuilder line = new StringBuilder("decode");
            int[] filled = held.clone();
            int[] expected = this.next.clone();
            int[] cellOf = new int[batch.size];
            for (int i = 0; i < batch.size; i++) {
                int seq = batch.seq[i];
                int pos = batch.pos[i];
                if (pos != expected[seq]) {
                    throw new AssertionError("sequence " + seq + " gets position " + pos + " where " + expected[seq]
                            + " comes next (after " + filled[seq] + " cells)");
                }
                if (filled[seq] >= cells[seq].length) {
                    throw new AssertionError(
                            "sequence " + seq + "'s stream of " + cells[seq].length + " cells is full");
                }
                cellOf[i] = filled[seq]++;
                expected[seq]++;
                line.append(' ')
                        .append(seq)
                        .append('@')
                        .append(pos)
                        .append(':')
                        .append(batch.token[i])
                        .append(batch.logits[i] ? "*" : "");
            }
            for (int i = 0; i < batch.size; i++) {
                cells[batch.seq[i]][cellOf[i]] = batch.token[i];
                positions[batch.seq[i]][cellOf[i]] = batch.pos[i];
            }
            if (unified && Arrays.stream(filled).sum() > contextSize) {
                throw new AssertionError("the pool of " + contextSize + " cells is full: llama_decode would return 1"
                        + " (sequences would hold " + Arrays.toString(filled) + ")");
            }
            System.arraycopy(filled, 0, held, 0, seqMax);
            System.arraycopy(expected, 0, this.next, 0, seqMax);
            logits = Arrays.copyOf(batch.logits, batch.size);
            lastSeq = Arrays.copyOf(batch.seq, batch.size);
            lastCell = cellOf;
            calls.add(line.toString());
        }
    }

    /**
     * Records {@code media seq@pos:id xN} (the first 8 hex digits of the id, N embeddings), checks
     * the position as a decode does, and puts the chunk's placeholders into the sequence's cells.
     * Fails as an encoder would when {@link #failMedia} is set.
     */
    @Override
    public synchronized void decodeMedia(MediaTokens prompt, int span, int position, int sequence) {
        MediaTokens.Span s = prompt.media().get(span);
        boolean mrope = s.positions() < s.length();
        calls.add("media " + sequence + "@" + position + ":" + s.id().substring(0, 8) + " x" + s.length()
                + (mrope ? " p" + s.positions() : ""));
        if (mediaFailure != null) {
            throw mediaFailure;
        }
        if (position != next[sequence]) {
            throw new AssertionError("sequence " + sequence + " gets media at " + position + " where " + next[sequence]
                    + " comes next (after " + held[sequence] + " cells)");
        }
        int at = held[sequence];
        if (at + s.length() > cells[sequence].length) {
            throw new AssertionError("sequence " + sequence + "'s stream is full");
        }
        int[] tokens = prompt.tokens();
        System.arraycopy(tokens, s.start(), cells[sequence], at, s.length());
        for (int j = 0; j < s.length(); j++) {
            positions[sequence][at + j] = mrope ? position : position + j;
        }
        held[sequence] += s.length();
        next[sequence] += s.positions();
        logits = new boolean[0]; // a media decode reads no logits
    }

    private volatile RuntimeException mediaFailure;

    /** Every following {@link #decodeMedia} throws {@code failure} (null: none). */
    FakeContext failMedia(RuntimeException failure) {
        mediaFailure = failure;
        return this;
    }

    @Override
    public synchronized TokenSampler sampler(SamplingParams params) {
        if (samplerFailure != null) {
            throw samplerFailure;
        }
        int id = ++samplers;
        calls.add("sampler " + id);
        int[] script = scripts.isEmpty() ? new int[0] : scripts.poll();
        return new Sampler(id, script);
    }

    @Override
    public synchronized boolean removeTokens(int sequence, int from, int to) {
        calls.add("remove " + sequence + " [" + from + "," + to + ")");
        if (to != -1) {
            throw new AssertionError("the engine removes only tails");
        }
        if (cannotTrim && from > 0) {
            return false;
        }
        held[sequence] = below(sequence, from);
        next[sequence] = Math.min(next[sequence], from);
        return true;
    }

    /** How many of the sequence's cells lie below position {@code position} (positions never fall along the cells). */
    private int below(int sequence, int position) {
        int n = 0;
        while (n < held[sequence] && positions[sequence][n] < position) {
            n++;
        }
        return n;
    }

    @Override
    public synchronized void copySequence(int source, int target, int from, int to) {
        calls.add("copy " + source + " -> " + target + " [" + from + "," + to + ")");
        if (from != 0 || to > next[source]) {
            throw new AssertionError("a stream per sequence copies a prefix the source holds: [" + from + "," + to
                    + ") of positions below " + next[source]);
        }
        int n = below(source, to);
        System.arraycopy(cells[source], 0, cells[target], 0, n);
        System.arraycopy(positions[source], 0, positions[target], 0, n);
        held[target] = n;
        next[target] = to;
    }

    /** The first bytes of every state this fake saves. */
    static final int STATE_MAGIC = 0x46414B45;

    @Override
    public boolean savesSequences() {
        return true;
    }

    @Override
    public synchronized byte[] saveSequence(int sequence) {
        calls.add("save " + sequence + " (" + held[sequence] + ")");
        java.nio.ByteBuffer state = java.nio.ByteBuffer.allocate(12 + 8 * held[sequence]);
        state.putInt(STATE_MAGIC).putInt(held[sequence]).putInt(next[sequence]);
        for (int i = 0; i < held[sequence]; i++) {
            state.putInt(cells[sequence][i]).putInt(positions[sequence][i]);
        }
        return state.array();
    }

    @Override
    public synchronized boolean restoreSequence(int sequence, byte[] state) {
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(state);
        int n = state.length >= 8 && in.getInt() == STATE_MAGIC ? in.getInt() : -1;
        if (n < 0
                || n > cells[sequence].length
                || state.length != 12 + 8 * n
                || (unified && pooled() - held[sequence] + n > contextSize)) {
            calls.add("restore " + sequence + " failed");
            held[sequence] = 0;
            next[sequence] = 0;
            return false;
        }
        calls.add("restore " + sequence + " (" + n + ")");
        next[sequence] = in.getInt();
        for (int i = 0; i < n; i++) {
            cells[sequence][i] = in.getInt();
            positions[sequence][i] = in.getInt();
        }
        held[sequence] = n;
        return true;
    }

    @Override
    public synchronized int maxPosition(int sequence) {
        return next[sequence] - 1;
    }

    @Override
    public synchronized void clearMemory() {
        calls.add("clear");
        Arrays.fill(held, 0);
        Arrays.fill(next, 0);
    }

    @Override
    public void idle() {
        calls.add("idle");
    }

    @Override
    public synchronized TokenLogprobs logprobs(int batchIndex, int token, int top) {
        calls.add("logprobs @" + batchIndex + " " + token + " top " + top);
        if (noLogprobs) {
            throw new UnsupportedOperationException("log-probabilities are not supported by this backend");
        }
        requireLogits(batchIndex);
        List<TokenLogprobs.Candidate> alternatives = new ArrayList<>();
        for (int j = 0; j < top; j++) {
            alternatives.add(new TokenLogprobs.Candidate(FakeVocabulary.A + j, -0.5f * (j + 1)));
        }
        return new TokenLogprobs(new TokenLogprobs.Candidate(token, -0.25f * (batchIndex + 1)), alternatives);
    }

    @Override
    public void close() {
        calls.add("close");
    }

    private void requireLogits(int batchIndex) {
        if (batchIndex < 0 || batchIndex >= logits.length || !logits[batchIndex]) {
            throw new AssertionError("no logits at batch index " + batchIndex + " of the last decode");
        }
    }

    /** A batch as llama.cpp's: filled, decoded, cleared; its capacity is the context's batch size. */
    private static final class Batch implements TokenBatch {
        final int[] token;
        final int[] pos;
        final int[] seq;
        final boolean[] logits;
        int size;

        Batch(int capacity) {
            token = new int[capacity];
            pos = new int[capacity];
            seq = new int[capacity];
            logits = new boolean[capacity];
        }

        @Override
        public void clear() {
            size = 0;
        }

        @Override
        public int add(int t, int p, int s, boolean l) {
            if (size == token.length) {
                throw new AssertionError("the batch of " + token.length + " is full");
            }
            token[size] = t;
            pos[size] = p;
            seq[size] = s;
            logits[size] = l;
            return size++;
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public int capacity() {
            return token.length;
        }
    }

    /** Returns its script's tokens in order, then {@link #FILLER}. */
    private final class Sampler implements TokenSampler {
        private final int id;
        private final int[] script;
        private int next;
        private boolean closed;

        Sampler(int id, int[] script) {
            this.id = id;
            this.script = script;
        }

        @Override
        public int sample(int batchIndex) {
            synchronized (FakeContext.this) {
                if (closed) {
                    throw new AssertionError("sampler " + id + " is closed");
                }
                requireLogits(batchIndex);
                var m = model;
                int token = next < script.length
                        ? script[next++]
                        : m != null
                                ? m.applyAsInt(Arrays.copyOf(cells[lastSeq[batchIndex]], lastCell[batchIndex] + 1))
                                : FILLER;
                if (token == THROW) {
                    throw new IllegalStateException("scripted failure of sampler " + id);
                }
                if (token == REFUSE) {
                    throw new SamplingException("the grammar allows no token");
                }
                calls.add("sample " + id + " @" + batchIndex + " -> " + token);
                return token;
            }
        }

        @Override
        public void accept(int token) {
            calls.add("accept " + id + " " + token);
        }

        @Override
        public void close() {
            synchronized (FakeContext.this) {
                if (closed) {
                    throw new AssertionError("sampler " + id + " closed twice");
                }
                closed = true;
                calls.add("close sampler " + id);
            }
        }
    }
}
