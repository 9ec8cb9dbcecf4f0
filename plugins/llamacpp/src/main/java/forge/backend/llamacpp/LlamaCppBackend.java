package forge.backend.llamacpp;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import forge.api.BackendException;
import forge.api.backend.Backend;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
import forge.api.backend.ModelQuantizer;
import forge.backend.llamacpp.ffm.Llama;
import forge.backend.llamacpp.ffm.LlamaLibrary;
import forge.backend.llamacpp.ffm.LlamaLog;
import forge.backend.llamacpp.ffm.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The llama.cpp backend: loads models. Holds no native memory itself; the libraries are
 * process-wide ({@link LlamaLibrary}) and each model owns its own arena.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
public final class LlamaCppBackend implements Backend {
    private static final Logger LOG = LoggerFactory.getLogger(LlamaCppBackend.class);

    // enum llama_load_mode
    private static final int LLAMA_LOAD_MODE_NONE = 0;
    private static final int LLAMA_LOAD_MODE_MMAP = 1;

    /** The {@code llama_progress_callback} target: {@code bool (*)(float progress, void * user_data)}. */
    private static final MethodHandle PROGRESS;
    private static final FunctionDescriptor PROGRESS_DESCRIPTOR = FunctionDescriptor.of(JAVA_BOOLEAN, JAVA_FLOAT, ADDRESS);

    static {
        try {
            PROGRESS = MethodHandles.lookup().findVirtual(ProgressUpcall.class, "update",
                    MethodType.methodType(boolean.class, float.class, MemorySegment.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final LlamaLibrary library;
    private volatile boolean closed;

    LlamaCppBackend(LlamaLibrary library) {
        this.library = library;
    }

    @Override
    public String name() {
        return LlamaCppProvider.NAME;
    }

    @Override
    public java.util.Optional<String> refuses(forge.api.model.ModelMetadata metadata) {
        return Architectures.refuses(metadata.architecture());
    }

    /** The loaded libraries: their folder, version and system info. */
    public LlamaLibrary library() {
        return library;
    }

    @Override
    public LoadedModel load(ModelLoadParams params, LoadProgress progress) {
        if (closed) {
            throw new BackendException("the llama.cpp backend is closed");
        }
        Path file = GgufFiles.check(params.path());
        ProgressUpcall upcall = new ProgressUpcall(progress);
        MemorySegment model;
        // The params struct, the path string and the progress stub live for this call only.
        try (Arena call = Arena.ofConfined()) {
            MemorySegment p = Llama.llama_model_default_params(call);
            Structs.setInt(p, Structs.llama_model_params, "n_gpu_layers", params.gpuLayers());
            Structs.setInt(p, Structs.llama_model_params, "load_mode",
                    params.useMmap() ? LLAMA_LOAD_MODE_MMAP : LLAMA_LOAD_MODE_NONE);
            Structs.setBoolean(p, Structs.llama_model_params, "vocab_only", params.vocabOnly());
            MemorySegment stub = Linker.nativeLinker().upcallStub(PROGRESS.bindTo(upcall), PROGRESS_DESCRIPTOR, call);
            Structs.setAddress(p, Structs.llama_model_params, "progress_callback", stub);
            LlamaLog.takeLastError();
            long start = System.nanoTime();
            model = Llama.llama_model_load_from_file(call.allocateFrom(file.toString()), p);
            if (model.equals(MemorySegment.NULL)) {
                if (upcall.failure != null) {
                    throw new BackendException("loading " + file + " failed in its progress callback: " + upcall.failure,
                            upcall.failure);
                }
                if (upcall.aborted) {
                    throw new BackendException("loading " + file + " was aborted by its progress callback");
                }
                String why = LlamaLog.takeLastError();
                throw new BackendException("llama.cpp could not load " + file + (why.isEmpty() ? "" : ": " + why));
            }
            LOG.debug("loaded {} in {} ms", file, (System.nanoTime() - start) / 1_000_000);
        }
        if (upcall.last < 1f) {
            // llama.cpp reports progress only while reading weights; a vocabulary-only load ends here.
            upcall.update(1f, MemorySegment.NULL);
        }
        return new LlamaModel(model, file, params.vocabOnly());
    }

    @Override
    public Optional<ModelQuantizer> quantizer() {
        return Optional.of(new LlamaQuantizer());
    }

    /**
     * Marks the backend closed. The libraries stay loaded: they are process-wide and cannot be
     * unloaded safely; every model must be closed by its owner.
     */
    @Override
    public void close() {
        closed = true;
    }

    /** Forwards llama.cpp's load progress to a {@link LoadProgress}; an upcall, so it never throws. */
    static final class ProgressUpcall {
        private final LoadProgress progress;
        volatile float last = -1f;
        volatile boolean aborted;
        volatile Throwable failure;

        ProgressUpcall(LoadProgress progress) {
            this.progress = progress;
        }

        boolean update(float fraction, MemorySegment userData) {
            try {
                last = fraction;
                if (!progress.update(fraction)) {
                    aborted = true;
                    return false;
                }
                return true;
            } catch (Throwable t) {
                failure = t;
                return false;
            }
        }
    }
}
