package forge.api.backend;

import java.util.Objects;
import java.util.Optional;

/**
 * Facts about a loaded model, read from the backend.
 *
 * @param description  the backend's one-line description (type, size, quantization)
 * @param architecture {@code general.architecture}
 * @param trainContext the context length the model was trained with
 * @param embeddingSize the width of its embeddings
 * @param layers       its number of layers
 * @param parameters   its number of parameters
 * @param sizeBytes    the size of its weights in bytes
 * @param chatTemplate the Jinja chat template it ships, when it has one
 */
public record ModelInfo(
        String description,
        String architecture,
        int trainContext,
        int embeddingSize,
        int layers,
        long parameters,
        long sizeBytes,
        Optional<String> chatTemplate) {
    public ModelInfo {
        Objects.requireNonNull(description);
        Objects.requireNonNull(architecture);
        Objects.requireNonNull(chatTemplate);
    }
}
