package forge.api.backend;

import forge.api.model.ModelMetadata;
import java.util.List;
import java.util.Optional;

/**
 * A created backend: loads models. Closing it releases the native libraries' global state; the
 * runtime closes every model first.
 */
public interface Backend extends AutoCloseable {

    /** The provider's name. */
    String name();

    /**
     * Loads a GGUF model. Fails with a {@link forge.api.BackendException} (never a JVM crash) for
     * a missing file, a file that is not GGUF or a truncated one.
     *
     * @param progress called with the fraction loaded; returning {@code false} aborts the load
     */
    LoadedModel load(ModelLoadParams params, LoadProgress progress);

    /**
     * Why this backend cannot load a model with {@code metadata} (an architecture it does not
     * know, say), decided from the GGUF header alone so that a catalog lists the model as
     * unavailable before anyone asks for it; empty when it may load.
     */
    default Optional<String> refuses(ModelMetadata metadata) {
        return Optional.empty();
    }

    /** The backend's quantizer, when it has one. */
    default Optional<ModelQuantizer> quantizer() {
        return Optional.empty();
    }

    /** The compute devices the backend runs on, with their memory now; empty when it does not say. */
    default List<Device> devices() {
        return List.of();
    }

    @Override
    void close();
}
