package forge.backend.llamacpp;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import forge.api.BackendException;
import forge.api.backend.AdapterScale;
import forge.api.backend.ContextParams;
import forge.api.backend.FlashAttention;
import forge.api.backend.InferenceContext;
import forge.api.backend.KvCacheType;
import forge.api.backend.MediaTokens;
import forge.api.backend.TokenBatch;
import forge.api.backend.TokenLogprobs;
import forge.api.backend.TokenSampler;
import forge.api.sampler.SamplingParams;
import forge.backend.llamacpp.ffm.Llama;
import forge.backend.llamacpp.ffm.LlamaLog;
import forge.backend.llamacpp.ffm.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A {@code llama_context}: the KV cache shared by up to {@link #seqMax()} sequences, its batch and
 * its samplers. Confined to the thread that created it (the engine's platform thread): its arena is
 * confined, and every method checks the thread first so that misuse is a
 * {@link BackendException}, not a crash. Closing it closes its samplers and batch, then frees the
 * context ({@code llama_free}, attached to the arena), then its CPU thread pools
 * ({@link LlamaThreadpools}), and tells the model.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
public final class LlamaContext implements InferenceContext {
    private final LlamaModel model;
    private final Thread owner = Thread.currentThread();
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment ctx;
    private final MemorySegment memory;
    /** {@code LLAMA_POOLING_TYPE_MEAN} of {@code enum llama_pooling_type}. */
    private static final int LLAMA_POOLING_TYPE_MEAN = 1;
    /** {@code LLAMA_POOLING_TYPE_RANK}: a reranker's classification head, {@code n_cls_out} scores per sequence. */
    private static final int LLAMA_POOLING_TYPE_RANK = 4;

    private final int contextSize;
    private final int seqMax;
    /** One KV cache for all sequences (cells tagged per sequence) rather than a stream each. */
    private final boolean unified;

    private final LlamaBatch batch;
    /** The CPU thread pools; null when ggml offers none (it then makes one per graph). */
    private final LlamaThreadpools pools;

    private final List<LlamaSampler> samplers = new ArrayList<>();
    /** Which batch indices of the last successful decode have logits: what {@link LlamaSampler#sample} may ask for. */
    private final boolean[] outputs;

    private int decoded;
    private final int ubatch;
    private boolean closed;
    /** The LoRA adapters llama.cpp applies to the next decode, as last set. */
    private List<AdapterScale> applied = List.of();

    /**
     * The largest sequence state kept in {@link #stateBuffer} between saves and restores: a slot
     * of ~1,000 tokens of a 0.5B model is ~12 MiB; larger states (long contexts of large models,
     * up to gigabytes) get memory of their own for each call, as they are rare and would pin it.
     */
    static final long STATE_BUFFER_LIMIT = 64L << 20;
    /**
     * Native memory for sequence states on their way to and from the heap, reused: a fresh
     * allocation for each call is zeroed and page-faulted in twice per prompt-cache swap (a save
     * and a restore), ~10 ms of a returning session's first token. Grown when a state is larger,
     * freed with the context; owner thread only, as the rest of this class.
     */
    private Arena stateArena;

    private MemorySegment stateBuffer = MemorySegment.NULL;

    /** {@code enum llama_flash_attn_type}. */
    private static int flashAttnType(FlashAttention fa) {
        return switch (fa) {
            case AUTO -> -1; // LLAMA_FLASH_ATTN_TYPE_AUTO
            case OFF -> 0; // LLAMA_FLASH_ATTN_TYPE_DISABLED
            case ON -> 1; // LLAMA_FLASH_ATTN_TYPE_ENABLED
        };
    }

    /** {@code enum ggml_type}, for the KV cache. */
    private static int ggmlType(KvCacheType type) {
        return switch (type) {
            case F32 -> 0; // GGML_TYPE_F32
            case F16 -> 1; // GGML_TYPE_F16
            case Q4_0 -> 2; // GGML_TYPE_Q4_0
            case Q4_1 -> 3; // GGML_TYPE_Q4_1
            case Q5_0 -> 6; // GGML_TYPE_Q5_0
            case Q5_1 -> 7; // GGML_TYPE_Q5_1
            case Q8_0 -> 8; // GGML_TYPE_Q8_0
            case BF16 -> 30; // GGML_TYPE_BF16
        };
    }

    LlamaContext(LlamaModel model, ContextParams params) {
        this.model = model;
        this.unified = params.kvUnified();
        this.ubatch = Math.min(params.ubatchSize(), params.batchSize());
        MemorySegment raw;
        LlamaThreadpools threadpools;
        try (Arena call = Arena.ofConfined()) {
            // Before the context, so that the arena frees the pools after llama_free.
            threadpools = LlamaThreadpools.create(arena, params.threads(), params.threadsBatch());
            MemorySegment p = Llama.llama_context_default_params(call);
            var layout = Structs.llama_context_params;
            Structs.setInt(p, layout, "n_ctx", params.contextSize());
            Structs.setInt(p, layout, "n_batch", params.batchSize());
            Structs.setInt(p, layout, "n_ubatch", Math.min(params.ubatchSize(), params.batchSize()));
            Structs.setInt(p, layout, "n_seq_max", params.seqMax());
            Structs.setInt(p, layout, "n_threads", params.threads());
            Structs.setInt(p, layout, "n_threads_batch", params.threadsBatch());
            Structs.setInt(p, layout, "flash_attn_type", flashAttnType(params.flashAttention()));
            int kvType = ggmlType(params.kvCacheType());
            Structs.setInt(p, layout, "type_k", kvType);
            Structs.setInt(p, layout, "type_v", kvType);
            Structs.setBoolean(p, layout, "kv_unified", params.kvUnified());
            Structs.setBoolean(p, layout, "embeddings", params.embeddings());
            if (params.embeddings()
                    && !model.metadata().containsKey(model.info().architecture() + ".pooling_type")) {
                // A decoder model says nothing about pooling, which llama.cpp reads as NONE: then
                // llama_get_embeddings_seq has nothing to return. Mean pooling is what
                // llama-server's --embeddings does for such models too.
                Structs.setInt(p, layout, "pooling_type", LLAMA_POOLING_TYPE_MEAN);
            }
            // Timing bookkeeping costs on every decode and nobody reads it here.
            Structs.setBoolean(p, layout, "no_perf", true);
            LlamaLog.takeLastError();
            raw = Llama.llama_init_from_model(model.segment(), p);
        } catch (IllegalStateException e) {
            arena.close();
            throw new BackendException("model " + model.path() + " is closed", e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
        if (raw.equals(MemorySegment.NULL)) {
            arena.close();
            String why = LlamaLog.takeLastError();
            throw new BackendException("llama.cpp could not create a context (ctx=" + params.contextSize() + ", seqMax="
                    + params.seqMax() + ", batch=" + params.batchSize() + ")" + (why.isEmpty() ? "" : ": " + why));
        }
        this.ctx = raw.reinterpret(arena, Llama::llama_free);
        this.pools = threadpools;
        try {
            if (threadpools != null) {
                Llama.llama_attach_threadpool(ctx, threadpools.decode, threadpools.batch);
            }
            this.memory = Llama.llama_get_memory(ctx).reinterpret(arena, null);
            this.contextSize = Llama.llama_n_ctx(ctx);
            this.seqMax = Llama.llama_n_seq_max(ctx);
            int capacity = Llama.llama_n_batch(ctx);
            this.batch =
                    new LlamaBatch(this, capacity, seqMax, model.vocabulary().size());
            this.outputs = new boolean[capacity];
        } catch (RuntimeException | Error e) {
            arena.close(); // frees the context
            throw e;
        }
    }

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
        ensureOpen();
        return batch;
    }

    /** The model this context runs. */
    public LlamaModel model() {
        return model;
    }

    @Override
    public void decode() {
        ensureOpen();
        int n = batch.size();
        if (n == 0) {
            throw new BackendException("decode of an empty batch");
        }
        decoded = 0;
        int rc = Llama.llama_decode(ctx, batch.prepare());
        switch (rc) {
            case 0 -> {
                batch.copyOutputs(outputs);
                decoded = n;
            }
            case 1 ->
                throw new BackendException("no KV slot for the batch of " + n + " tokens (context of " + contextSize
                        + " cells is full): free sequences or use a smaller batch");
            case 2 -> throw new BackendException("decode was aborted");
            case -1 ->
                throw new BackendException("llama.cpp rejected the batch as invalid: " + LlamaLog.takeLastError());
            default -> throw new BackendException("llama_decode failed with " + rc + ": " + LlamaLog.takeLastError());
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>{@code llama_set_adapters_lora}: llama.cpp keeps the set (adapters with a scale of 0 are
     * left out, as it leaves them out itself) and the next decode builds its graph with it. The
     * arrays are only read during the call.
     */
    @Override
    public void adapters(List<AdapterScale> set) {
        ensureOpen();
        List<AdapterScale> given = List.copyOf(set);
        if (given.equals(applied)) {
            return;
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment pointers = call.allocate(ADDRESS, Math.max(1, given.size()));
            MemorySegment scales = call.allocate(JAVA_FLOAT, Math.max(1, given.size()));
            for (int i = 0; i < given.size(); i++) {
                if (!(given.get(i).adapter() instanceof LlamaLoraAdapter a) || a.model() != model) {
                    throw new BackendException("the LoRA adapter "
                            + given.get(i).adapter().path() + " is not one of this context's model");
                }
                pointers.setAtIndex(ADDRESS, i, a.segment());
                scales.setAtIndex(JAVA_FLOAT, i, given.get(i).scale());
            }
            int rc = Llama.llama_set_adapters_lora(ctx, pointers, given.size(), scales);
            if (rc != 0) {
                throw new BackendException("llama_set_adapters_lora failed with " + rc);
            }
        }
        applied = given;
    }

    @Override
    public void decodeMedia(MediaTokens prompt, int span, int position, int sequence) {
        if (!(prompt instanceof MediaPrompt media)) {
            throw new BackendException("the media prompt was not made by this backend");
        }
        LlamaProjector projector = model.projector()
                .orElseThrow(() -> new BackendException("model " + model.path() + " has no multimodal projector"));
        int chunk = media.chunkOf(span);
        projector.eval(this, media, chunk, chunk + 1, position, sequence, false);
    }

    @Override
    public TokenSampler sampler(SamplingParams params) {
        ensureOpen();
        LlamaSampler sampler = new LlamaSampler(this, params);
        samplers.add(sampler);
        return sampler;
    }

    @Override
    public boolean removeTokens(int sequence, int from, int to) {
        ensureOpen();
        checkSequence(sequence);
        return Llama.llama_memory_seq_rm(memory, sequence, from, to);
    }

    @Override
    public boolean savesSequences() {
        return true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>{@code llama_state_seq_get_data_ext} into native memory, then one copy onto the heap: the
     * engine keeps states for minutes, and a heap array is what the garbage collector bounds.
     */
    @Override
    public byte[] saveSequence(int sequence) {
        ensureOpen();
        checkSequence(sequence);
        long size = Llama.llama_state_seq_get_size_ext(ctx, sequence, Llama.LLAMA_STATE_SEQ_FLAGS_NONE);
        if (size <= 0 || size > Integer.MAX_VALUE - 16) {
            throw new BackendException("llama.cpp reports a state of " + size + " bytes for sequence " + sequence);
        }
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment buffer = stateBuffer(size, scratch);
            long written =
                    Llama.llama_state_seq_get_data_ext(ctx, buffer, size, sequence, Llama.LLAMA_STATE_SEQ_FLAGS_NONE);
            if (written <= 0) {
                throw new BackendException("llama.cpp could not save the state of sequence " + sequence);
            }
            return buffer.asSlice(0, written).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /**
     * {@code size} bytes of native memory for a state: the kept buffer (grown to fit) up to
     * {@link #STATE_BUFFER_LIMIT}, else memory of {@code scratch}, freed when the call ends.
     */
    private MemorySegment stateBuffer(long size, Arena scratch) {
        if (size > STATE_BUFFER_LIMIT) {
            return scratch.allocate(size);
        }
        if (stateBuffer.byteSize() < size) {
            if (stateArena != null) {
                stateArena.close();
            }
            stateArena = Arena.ofConfined();
            // A quarter more, so that a state a few tokens longer does not grow it again.
            stateBuffer = stateArena.allocate(Math.min(STATE_BUFFER_LIMIT, size + size / 4), 64);
        }
        return stateBuffer.asSlice(0, size);
    }

    /** The bytes of native memory kept for states between calls; 0 before the first. */
    long stateBufferBytes() {
        return stateBuffer.byteSize();
    }

    @Override
    public boolean restoreSequence(int sequence, byte[] state) {
        ensureOpen();
        checkSequence(sequence);
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment buffer = stateBuffer(state.length, scratch);
            MemorySegment.copy(state, 0, buffer, ValueLayout.JAVA_BYTE, 0, state.length);
            long read = Llama.llama_state_seq_set_data_ext(
                    ctx, buffer, state.length, sequence, Llama.LLAMA_STATE_SEQ_FLAGS_NONE);
            if (read != state.length) {
                // llama.cpp removed what it had restored of the sequence; make sure nothing is left.
                Llama.llama_memory_seq_rm(memory, sequence, -1, -1);
                return false;
            }
            return true;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>With a stream per sequence llama.cpp copies only whole streams (a partial cross-stream
     * {@code llama_memory_seq_cp} is a {@code GGML_ASSERT}, which would abort the process): the
     * source's stream is copied, its buffers at the start of the next decode, and the target's
     * cells from {@code to} on are removed again. So {@code from} must be 0 there.
     */
    @Override
    public void copySequence(int source, int target, int from, int to) {
        ensureOpen();
        checkSequence(source);
        checkSequence(target);
        if (unified || source == target) {
            Llama.llama_memory_seq_cp(memory, source, target, from, to);
            return;
        }
        if (from > 0) {
            throw new BackendException(
                    "with a KV stream per sequence only a prefix can be copied (from 0), not from " + from);
        }
        Llama.llama_memory_seq_cp(memory, source, target, -1, -1);
        if (to >= 0) {
            Llama.llama_memory_seq_rm(memory, target, to, -1);
        }
    }

    /** Removes every sequence but {@code sequence} from the KV cache. */
    public void keepSequence(int sequence) {
        ensureOpen();
        checkSequence(sequence);
        Llama.llama_memory_seq_keep(memory, sequence);
    }

    @Override
    public int maxPosition(int sequence) {
        ensureOpen();
        checkSequence(sequence);
        return Llama.llama_memory_seq_pos_max(memory, sequence);
    }

    /** Pauses the CPU thread pools (see {@link LlamaThreadpools#pause}); the next decode resumes them. */
    @Override
    public void idle() {
        ensureOpen();
        if (pools != null) {
            pools.pause();
        }
    }

    @Override
    public void clearMemory() {
        ensureOpen();
        Llama.llama_memory_clear(memory, true);
        decoded = 0;
    }

    @Override
    public float[] embedding(int sequence) {
        ensureOpen();
        checkSequence(sequence);
        MemorySegment e = Llama.llama_get_embeddings_seq(ctx, sequence);
        if (e.equals(MemorySegment.NULL)) {
            throw new BackendException("no embedding for sequence " + sequence
                    + ": create the context with embeddings on and decode the sequence first");
        }
        // "when pooling_type == LLAMA_POOLING_TYPE_RANK, returns float[n_cls_out] with the rank(s) of the sequence"
        int n = Llama.llama_pooling_type(ctx) == LLAMA_POOLING_TYPE_RANK
                ? Llama.llama_model_n_cls_out(model.segment())
                : model.info().embeddingSize();
        return e.reinterpret(4L * n).toArray(JAVA_FLOAT);
    }

    /**
     * One pass over the native row of logits: an online log-sum-exp (a running maximum and the sum
     * rescaled whenever the maximum grows) and a min-heap of the {@code top} best logits. Nothing
     * the size of the vocabulary is copied to the heap; only the answer is allocated.
     */
    @Override
    public TokenLogprobs logprobs(int batchIndex, int token, int top) {
        ensureOpen();
        checkOutput(batchIndex);
        int nVocab = model.vocabulary().size();
        if (token < 0 || token >= nVocab) {
            throw new BackendException("token " + token + " is out of range: the vocabulary has " + nVocab);
        }
        if (top < 0 || top > TokenLogprobs.MAX_TOP) {
            throw new BackendException("top must be 0 to " + TokenLogprobs.MAX_TOP + ": " + top);
        }
        MemorySegment row = Llama.llama_get_logits_ith(ctx, batchIndex);
        if (row.equals(MemorySegment.NULL)) {
            throw new BackendException("no logits at batch index " + batchIndex + ": " + LlamaLog.takeLastError());
        }
        row = row.reinterpret(4L * nVocab);
        float max = Float.NEGATIVE_INFINITY;
        double sum = 0;
        int[] heapIds = new int[top];
        float[] heapLogits = new float[top];
        int heapSize = 0;
        for (int i = 0; i < nVocab; i++) {
            float x = row.getAtIndex(JAVA_FLOAT, i);
            if (x > max) {
                sum = sum * Math.exp((double) max - x) + 1; // exp(-inf) is 0: the first finite logit starts the sum
                max = x;
            } else if (x != Float.NEGATIVE_INFINITY) {
                sum += Math.exp((double) x - max);
            }
            if (top > 0 && (heapSize < top || x > heapLogits[0])) {
                if (heapSize < top) {
                    heapIds[heapSize] = i;
                    heapLogits[heapSize] = x;
                    siftUp(heapIds, heapLogits, heapSize++);
                } else {
                    heapIds[0] = i;
                    heapLogits[0] = x;
                    siftDown(heapIds, heapLogits, heapSize);
                }
            }
        }
        double logZ = max + Math.log(sum);
        // Drain the min-heap from the worst up, filling the list from its end: most likely first.
        TokenLogprobs.Candidate[] best = new TokenLogprobs.Candidate[heapSize];
        for (int n = heapSize; n > 0; n--) {
            best[n - 1] = candidate(heapIds[0], heapLogits[0], logZ);
            heapIds[0] = heapIds[n - 1];
            heapLogits[0] = heapLogits[n - 1];
            siftDown(heapIds, heapLogits, n - 1);
        }
        return new TokenLogprobs(candidate(token, row.getAtIndex(JAVA_FLOAT, token), logZ), List.of(best));
    }

    private static TokenLogprobs.Candidate candidate(int id, float logit, double logZ) {
        // Rounding can put the top token a hair above 0.
        return new TokenLogprobs.Candidate(id, (float) Math.min(0, logit - logZ));
    }

    private static void siftUp(int[] ids, float[] logits, int i) {
        while (i > 0) {
            int parent = (i - 1) / 2;
            if (logits[parent] <= logits[i]) {
                return;
            }
            swap(ids, logits, i, parent);
            i = parent;
        }
    }

    private static void siftDown(int[] ids, float[] logits, int size) {
        int i = 0;
        while (true) {
            int l = 2 * i + 1;
            int r = l + 1;
            int smallest = i;
            if (l < size && logits[l] < logits[smallest]) {
                smallest = l;
            }
            if (r < size && logits[r] < logits[smallest]) {
                smallest = r;
            }
            if (smallest == i) {
                return;
            }
            swap(ids, logits, i, smallest);
            i = smallest;
        }
    }

    private static void swap(int[] ids, float[] logits, int a, int b) {
        int id = ids[a];
        ids[a] = ids[b];
        ids[b] = id;
        float l = logits[a];
        logits[a] = logits[b];
        logits[b] = l;
    }

    /**
     * Closes the samplers still open, the batch, then the context. Harmless when already closed.
     *
     * @throws BackendException on another thread than the context's
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        checkThread();
        closed = true;
        for (LlamaSampler s : List.copyOf(samplers)) {
            s.close();
        }
        batch.free();
        if (stateArena != null) {
            stateArena.close();
        }
        arena.close();
        model.contextClosed();
    }

    void samplerClosed(LlamaSampler sampler) {
        samplers.remove(sampler);
    }

    /** The most tokens one physical batch computes ({@code n_ubatch}): a non-causal image must fit in one. */
    int ubatchCapacity() {
        return ubatch;
    }

    /** The most tokens one decode takes ({@code llama_n_batch}). */
    int batchCapacity() {
        return outputs.length;
    }

    /**
     * Records a decode libmtmd ran on this context ({@link LlamaProjector#eval}): its last batch
     * had {@code lastBatch} tokens, and with {@code logitsLast} the last of them has logits; the
     * batch this context owns is left empty.
     */
    void evaluatedOutside(int lastBatch, boolean logitsLast) {
        Arrays.fill(outputs, false);
        decoded = logitsLast ? lastBatch : 0;
        if (logitsLast && lastBatch > 0) {
            outputs[lastBatch - 1] = true;
        }
    }

    /** The {@code llama_context *}, attached to this context's arena. */
    MemorySegment segment() {
        return ctx;
    }

    /** Fails unless {@code index} of the last decode has logits: llama.cpp would abort the process. */
    void checkOutput(int index) {
        if (index < 0 || index >= decoded || !outputs[index]) {
            throw new BackendException("no logits at batch index " + index + " of the last decode"
                    + (decoded == 0
                            ? " (nothing decoded since the last failure or clear)"
                            : " (" + decoded + " tokens; add the token with logits = true)"));
        }
    }

    void checkSequence(int sequence) {
        if (sequence < 0 || sequence >= seqMax) {
            throw new BackendException("sequence " + sequence + " is out of range: the context holds " + seqMax);
        }
    }

    void ensureOpen() {
        if (closed) {
            throw new BackendException("the inference context is closed");
        }
        checkThread();
    }

    private void checkThread() {
        if (Thread.currentThread() != owner) {
            throw new BackendException("the inference context belongs to thread " + owner.getName() + ", not "
                    + Thread.currentThread().getName());
        }
    }
}
