package forge.api.backend;

import forge.api.BackendException;
import forge.api.template.ChatImage;
import java.nio.file.Path;
import java.util.List;
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
     * Loads a LoRA adapter for this model. The adapter lives as long as the model: it is freed when
     * the model closes, which happens only after every context (and so every decode) is closed.
     *
     * @throws BackendException when the file is not a LoRA adapter of this model (another
     *                          architecture, tensors of other shapes), with the reason
     */
    default LoraAdapter loadAdapter(Path file) {
        throw new BackendException("this backend cannot load LoRA adapters");
    }

    /**
     * Whether the model reads images: a multimodal projector was loaded with it. A request with
     * images to a model without one is refused before anything runs.
     */
    default boolean vision() {
        return false;
    }

    /** Whether the model reads audio: its projector encodes audio. */
    default boolean audio() {
        return false;
    }

    /** The projector file loaded with the model, if any. */
    default Optional<Path> projectorFile() {
        return Optional.empty();
    }

    /**
     * Splits a rendered prompt at its {@link forge.api.template.ChatImage#MARKER markers} into text
     * and media chunks, the {@code i}-th marker becoming {@code images.get(i)}: the text tokenized
     * (special tokens parsed), each image decoded and preprocessed by the projector (not encoded:
     * that is {@link InferenceContext#decodeMedia}). Call on any thread; the caller owns the result.
     *
     * @param addSpecial whether the model's BOS is added, as {@link Vocabulary#tokenize} adds it
     * @throws BackendException for a model without a projector, an image that does not decode, or
     *                          a count of images unlike the count of markers
     */
    default MediaTokens media(String prompt, List<ChatImage> images, boolean addSpecial) {
        throw new BackendException("this model has no multimodal projector");
    }

    /** Frees the weights. Every context created from this model must be closed first. */
    @Override
    void close();
}
