package forge.backend.llamacpp;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import forge.api.BackendException;
import forge.api.backend.TokenBatch;
import forge.backend.llamacpp.ffm.Llama;
import forge.backend.llamacpp.ffm.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * A context's {@code llama_batch}, allocated once by {@code llama_batch_init} and filled in place:
 * {@link #add} writes straight into the C arrays ({@code token}, {@code pos}, {@code n_seq_id},
 * {@code seq_id[i][0]}, {@code logits}), so nothing is allocated per token.
 *
 * <p>Owns a confined arena that holds the struct and views of its arrays sized to the capacity;
 * {@link #free} calls {@code llama_batch_free} and then closes the arena, after which every view
 * is dead and any access fails instead of writing freed memory.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
final class LlamaBatch implements TokenBatch {
    private static final long N_TOKENS = Structs.offset(Structs.llama_batch, "n_tokens");

    private final LlamaContext context;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment struct;
    private final int capacity;
    private final int seqMax;
    private final int vocabSize;
    private final MemorySegment token;
    private final MemorySegment pos;
    private final MemorySegment nSeqId;
    private final MemorySegment logits;
    /** {@code seq_id[i]}: one malloc'd row of {@code n_seq_max} ids per token. */
    private final MemorySegment[] seqIds;

    private int size;
    private boolean freed;

    LlamaBatch(LlamaContext context, int capacity, int seqMax, int vocabSize) {
        this.context = context;
        this.capacity = capacity;
        this.seqMax = seqMax;
        this.vocabSize = vocabSize;
        // struct llama_batch llama_batch_init(int32_t n_tokens, int32_t embd, int32_t n_seq_max);
        this.struct = Llama.llama_batch_init(arena, capacity, 0, seqMax);
        var layout = Structs.llama_batch;
        this.token = view(layout, "token", 4L * capacity);
        this.pos = view(layout, "pos", 4L * capacity);
        this.nSeqId = view(layout, "n_seq_id", 4L * capacity);
        this.logits = view(layout, "logits", capacity);
        MemorySegment rows = view(layout, "seq_id", ADDRESS.byteSize() * capacity);
        this.seqIds = new MemorySegment[capacity];
        for (int i = 0; i < capacity; i++) {
            seqIds[i] = rows.getAtIndex(ADDRESS, i).reinterpret(4L * seqMax, arena, null);
        }
    }

    private MemorySegment view(StructLayout layout, String field, long bytes) {
        return Structs.getAddress(struct, layout, field).reinterpret(bytes, arena, null);
    }

    @Override
    public void clear() {
        context.ensureOpen();
        size = 0;
    }

    @Override
    public int add(int token, int position, int sequence, boolean logits) {
        context.ensureOpen();
        if (size >= capacity) {
            throw new BackendException("the batch is full (" + capacity + " tokens): decode it first");
        }
        if (token < 0 || token >= vocabSize) {
            throw new BackendException(
                    "token " + token + " is out of range: the vocabulary has " + vocabSize + " tokens");
        }
        if (sequence < 0 || sequence >= seqMax) {
            throw new BackendException("sequence " + sequence + " is out of range: the context holds " + seqMax);
        }
        if (position < 0) {
            throw new BackendException("negative position " + position);
        }
        int i = size;
        this.token.setAtIndex(JAVA_INT, i, token);
        pos.setAtIndex(JAVA_INT, i, position);
        nSeqId.setAtIndex(JAVA_INT, i, 1);
        seqIds[i].set(JAVA_INT, 0, sequence);
        this.logits.set(JAVA_BYTE, i, logits ? (byte) 1 : (byte) 0);
        size = i + 1;
        return i;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    /** Sets {@code n_tokens} and returns the struct, to be passed to {@code llama_decode} by value. */
    MemorySegment prepare() {
        struct.set(JAVA_INT, N_TOKENS, size);
        return struct;
    }

    /** Copies which tokens asked for logits, for the sampler's index check. */
    void copyOutputs(boolean[] outputs) {
        for (int i = 0; i < size; i++) {
            outputs[i] = logits.get(JAVA_BYTE, i) != 0;
        }
    }

    /** Frees the C arrays, then the arena. Harmless when already freed. */
    void free() {
        if (freed) {
            return;
        }
        freed = true;
        // void llama_batch_free(struct llama_batch batch); frees the arrays, not the struct (ours).
        Llama.llama_batch_free(struct);
        arena.close();
    }
}
