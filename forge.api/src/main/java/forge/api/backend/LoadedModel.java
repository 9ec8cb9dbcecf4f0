package forge.api.backend;

import java.util.Optional;

/**
 * A model whose weights are in memory. Thread-safe for {@link #info()} and {@link #vocabulary()};
 * each {@link InferenceContext} is confined to the thread that uses it.
 */
public interface LoadedModel extends AutoCloseable {

    ModelInfo info();

    Vocabulary vocabulary();

    /** Where the layers went, on a backend with GPU devices; empty where everything runs on the CPU. */
    default Optional<Offload> offload() {
        return Optional.empty();
    }

    /** Creates a context (KV cache, compute buffers) for up to {@code params.seqMax()} sequences. */
    InferenceContext newContext(ContextParams params);

    /**
     * Whether the model reads images: a multimodal projector was loaded with it. A request with
     * images to a model without one is refused before anything runs.
     */
    default boolean vision() {
        return false;
    }

    /** Frees the weights. Every context created from this model must be closed first. */
    @Override
    void close();
}
