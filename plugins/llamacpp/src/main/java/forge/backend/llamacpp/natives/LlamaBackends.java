package forge.backend.llamacpp.natives;

import forge.api.BackendException;
import forge.api.backend.Backend;
import forge.api.backend.BackendContext;
import forge.backend.llamacpp.GpuSettings;
import forge.backend.llamacpp.LlamaCppBackend;
import forge.backend.llamacpp.ffm.LlamaLibrary;

/**
 * The one llama.cpp backend, over whichever natives a provider hands it: the CPU provider its
 * folder, the CUDA provider the CUDA package's folder with the CUDA runtime preloaded. Called from
 * {@code BackendProvider.create} only, never from a probe: it loads the natives into the process
 * for good.
 */
public final class LlamaBackends {
    private LlamaBackends() {}

    /**
     * Loads {@code natives} and creates the backend, with the GPU settings of {@code context}
     * ({@link BackendContext#GPU_LAYERS} and the keys beside it).
     *
     * @param name the provider's name, which the backend reports
     * @throws BackendException when the natives do not load or a GPU setting is malformed
     */
    public static Backend create(String name, LlamaNatives natives, BackendContext context) {
        GpuSettings gpu = GpuSettings.from(context);
        LlamaLibrary library;
        try {
            library = LlamaLibrary.load(natives);
        } catch (LinkageError e) {
            throw new BackendException("cannot load llama.cpp from " + natives.directory() + ": " + e.getMessage(), e);
        }
        return new LlamaCppBackend(library, name, gpu);
    }
}
