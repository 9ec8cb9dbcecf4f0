package forge.api.backend;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How to load a model.
 *
 * @param path      the GGUF file
 * @param gpuLayers layers to offload to a GPU; negative means the backend's {@link BackendContext#GPU_LAYERS}
 *                  setting (default: every layer that fits); ignored by CPU backends
 * @param useMmap   map the file instead of reading it
 * @param vocabOnly load the vocabulary only (no weights): for tokenizer work and metadata
 */
public record ModelLoadParams(Path path, int gpuLayers, boolean useMmap, boolean vocabOnly) {
    public ModelLoadParams {
        Objects.requireNonNull(path, "path");
    }

    /** Defaults: every layer that fits on the GPU where there is one, mmap on, weights loaded. */
    public static ModelLoadParams of(Path path) {
        return new ModelLoadParams(path, -1, true, false);
    }
}
