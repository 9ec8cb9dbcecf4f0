package forge.api.backend;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How to load a model.
 *
 * @param path      the GGUF file
 * @param gpuLayers layers to offload to a GPU; negative means the backend's {@link BackendContext#GPU_LAYERS}
 *                  setting (default: every layer that fits); ignored by CPU backends
 * @param useMmap   map the file instead of reading it
 * @param vocabOnly load the vocabulary only (no weights): for tokenizer work and metadata
 * @param projector a multimodal projector ({@code mmproj-*.gguf}) to load with the model, if any:
 *                  the load fails when it does not fit the model (another embedding width)
 */
public record ModelLoadParams(Path path, int gpuLayers, boolean useMmap, boolean vocabOnly, Optional<Path> projector) {
    public ModelLoadParams {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(projector, "projector");
    }

    /** Without a projector. */
    public ModelLoadParams(Path path, int gpuLayers, boolean useMmap, boolean vocabOnly) {
        this(path, gpuLayers, useMmap, vocabOnly, Optional.empty());
    }

    /** Defaults: every layer that fits on the GPU where there is one, mmap on, weights loaded. */
    public static ModelLoadParams of(Path path) {
        return new ModelLoadParams(path, -1, true, false);
    }

    /** These params with {@code projector} loaded too. */
    public ModelLoadParams withProjector(Path projector) {
        return new ModelLoadParams(path, gpuLayers, useMmap, vocabOnly, Optional.of(projector));
    }
}
