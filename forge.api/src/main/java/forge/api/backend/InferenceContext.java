package forge.api.backend;

import forge.api.BackendException;
import forge.api.sampler.SamplingParams;
import java.util.List;

/**
 * A model's inference state: a KV cache shared by up to {@link #seqMax()} sequences, a reusable
 * {@link TokenBatch} and its samplers. Confined to one platform thread, the engine's: every
 * method must be called from that thread, and {@link #decode()} can take long.
 */
public interface InferenceContext extends AutoCloseable {

    /** The KV cells shared by all sequences. */
    int contextSize();

    /** The most sequences alive at once. */
    int seqMax();

    /** The batch {@link #decode()} consumes. */
    TokenBatch batch();

    /**
     * Runs the model over the batch.
     *
     * @throws forge.api.BackendException when the batch cannot be decoded (no KV space, aborted,
     *                                    or a backend failure)
     */
    void decode();

    /**
     * Sets the LoRA adapters every following {@link #decode()} applies, each at its scale (an empty
     * list: none), until the next call. One decode applies one set to all its tokens, so sequences
     * that need different sets are decoded in different batches. Cheap when the set is the one
     * already applied.
     *
     * @throws BackendException when an adapter is not one of this context's model
     */
    default void adapters(List<AdapterScale> adapters) {
        if (!adapters.isEmpty()) {
            throw new BackendException("this backend cannot apply LoRA adapters");
        }
    }

    /**
     * Encodes media chunk {@code span} of {@code prompt} with the model's projector and decodes its
     * embeddings into {@code sequence} at positions {@code position ..
     * position + span.length() - 1}, in a decode of its own (the tokens before it must be decoded
     * already; the {@link #batch()} is left as it was). Reads no logits.
     *
     * @throws BackendException when the model has no projector, or encoding or decoding fails (the
     *                          sequence may then hold part of the chunk; the caller removes it)
     */
    default void decodeMedia(MediaTokens prompt, int span, int position, int sequence) {
        throw new BackendException("this backend cannot decode media");
    }

    /** Creates a sampler chain for one sequence. */
    TokenSampler sampler(SamplingParams params);

    /** Removes positions {@code [from, to)} of a sequence from the KV cache; -1 means open-ended. */
    boolean removeTokens(int sequence, int from, int to);

    /**
     * Makes {@code target} hold {@code source}'s cells for positions {@code [from, to)}, replacing
     * what it held there. With a unified KV cache this tags cells instead of copying them; with a
     * stream per sequence the cells are copied, and a backend may support only prefixes
     * ({@code from == 0}), the target's other cells being dropped.
     */
    void copySequence(int source, int target, int from, int to);

    /** The largest position held for a sequence, or -1 when it holds none. */
    int maxPosition(int sequence);

    /** Forgets every sequence. */
    void clearMemory();

    /**
     * Says that nothing will be decoded until the next {@link #decode}: a backend releases what it
     * holds busy between decodes (llama.cpp: its CPU threads stop polling for the next graph and
     * sleep). The next decode takes them up again. Call on the context's thread.
     */
    default void idle() {}

    /**
     * Whether {@link #saveSequence} and {@link #restoreSequence} work here. A backend without them
     * answers false, and the engine then keeps no prompt cache beyond its slots.
     */
    default boolean savesSequences() {
        return false;
    }

    /**
     * The state of a sequence's KV cells (every cell it holds, with their positions), as bytes that
     * {@link #restoreSequence} takes back into any sequence of this context or of another one made
     * from the same model file with the same settings. Synchronizes with the last decode first.
     *
     * @throws forge.api.BackendException when the state cannot be read
     */
    default byte[] saveSequence(int sequence) {
        throw new UnsupportedOperationException("saving a sequence's state is not supported by this backend");
    }

    /**
     * Replaces what {@code sequence} holds by a state {@link #saveSequence} returned.
     *
     * @return false when the state does not fit this context (other settings, too few free cells,
     *         damaged bytes): the sequence then holds nothing
     */
    default boolean restoreSequence(int sequence, byte[] state) {
        throw new UnsupportedOperationException("restoring a sequence's state is not supported by this backend");
    }

    /**
     * The embedding of a sequence after a decode with embeddings on, pooled by the model's pooling
     * type; for a reranker's rank pooling, the scores of its classification head (one per output
     * label, the first being the relevance).
     */
    default float[] embedding(int sequence) {
        throw new UnsupportedOperationException("embeddings are not supported by this backend");
    }

    /**
     * The log-probability of {@code token} and of the {@code top} most likely tokens at
     * {@code batchIndex} of the last decode, from the raw logits (a log-softmax over the whole
     * vocabulary). Only called when a request asks for log-probabilities, so a backend pays
     * nothing for it otherwise. Call it before the next decode: that replaces the logits.
     *
     * @param top how many alternatives, 0 to {@link TokenLogprobs#MAX_TOP}
     * @throws forge.api.BackendException when {@code batchIndex} has no logits
     */
    default TokenLogprobs logprobs(int batchIndex, int token, int top) {
        throw new UnsupportedOperationException("log-probabilities are not supported by this backend");
    }

    @Override
    void close();
}
