package forge.backend.llamacpp;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import forge.api.BackendException;
import forge.api.backend.ContextParams;
import forge.api.backend.InferenceContext;
import forge.api.backend.LoadedModel;
import forge.api.backend.LoraAdapter;
import forge.api.backend.ModelInfo;
import forge.api.backend.Offload;
import forge.api.backend.Vocabulary;
import forge.api.template.ChatImage;
import forge.backend.llamacpp.ffm.Llama;
import forge.backend.llamacpp.ffm.LlamaLibrary;
import forge.backend.llamacpp.ffm.LlamaLog;
import forge.lib.gguf.GgufException;
import forge.lib.gguf.GgufFile;
import forge.lib.gguf.GgufReader;
import forge.lib.gguf.LoraFiles;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;

/**
 * A loaded {@code llama_model}. Owns a shared arena (tokenization runs on any thread) to which
 * the model pointer is attached with {@code llama_model_free} as its cleanup: closing the arena
 * frees the model exactly once, and a downcall in flight on another thread keeps the arena open
 * (the linker acquires it), so a close can never free the model under a running tokenize.
 *
 * <p>Contexts use the model from inside llama.cpp, where the JVM cannot see it: the model counts
 * its open contexts and refuses to close while any is open.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
public final class LlamaModel implements LoadedModel {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment model;
    private final Path path;
    private final boolean vocabOnly;
    private final LlamaVocabulary vocabulary;
    private final ModelInfo info;
    private final Map<String, String> metadata;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger openContexts = new AtomicInteger();
    private final Offload offload;
    /** The multimodal projector loaded with the model, if any; freed before the model. */
    private volatile LlamaProjector projector;

    LlamaModel(MemorySegment rawModel, Path path, boolean vocabOnly) {
        this(rawModel, path, vocabOnly, new Offload(0, 0, List.of(), 0, "no GPU devices"));
    }

    LlamaModel(MemorySegment rawModel, Path path, boolean vocabOnly, Offload offload) {
        this.offload = offload;
        this.model = rawModel.reinterpret(arena, Llama::llama_model_free);
        this.path = path;
        this.vocabOnly = vocabOnly;
        try {
            this.vocabulary =
                    new LlamaVocabulary(this, Llama.llama_model_get_vocab(model).reinterpret(arena, null));
            vocabulary.checkByteFallback(path.toString());
            this.metadata = readMetadata(model);
            String description = string(256, buf -> Llama.llama_model_desc(model, buf, buf.byteSize()));
            String template = LlamaLibrary.cString(Llama.llama_model_chat_template(model, MemorySegment.NULL));
            this.info = new ModelInfo(
                    description,
                    metadata.getOrDefault("general.architecture", "unknown"),
                    Llama.llama_model_n_ctx_train(model),
                    Llama.llama_model_n_embd(model),
                    Llama.llama_model_n_layer(model),
                    Llama.llama_model_n_params(model),
                    Llama.llama_model_size(model),
                    template.isEmpty() ? Optional.empty() : Optional.of(template));
        } catch (RuntimeException | Error e) {
            arena.close(); // frees the model
            throw e;
        }
    }

    @Override
    public ModelInfo info() {
        return info;
    }

    @Override
    public Optional<Offload> offload() {
        return offload.offloaded() > 0 ? Optional.of(offload) : Optional.empty();
    }

    @Override
    public Vocabulary vocabulary() {
        return vocabulary;
    }

    /** The GGUF file the model was loaded from. */
    public Path path() {
        return path;
    }

    /** The model's scalar GGUF metadata as llama.cpp renders it (arrays are left out), in file order. */
    public Map<String, String> metadata() {
        return metadata;
    }

    @Override
    public InferenceContext newContext(ContextParams params) {
        ensureWeights("it has no weights to run");
        openContexts.incrementAndGet();
        try {
            return new LlamaContext(this, params);
        } catch (RuntimeException | Error e) {
            openContexts.decrementAndGet();
            throw e;
        }
    }

    /** Refuses, once closed or when loaded vocabulary-only, what needs the weights: {@code refusal} says what. */
    private void ensureWeights(String refusal) {
        ensureOpen();
        if (vocabOnly) {
            throw new BackendException("model " + path + " was loaded vocabulary-only; " + refusal);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The file's header is checked against the model's first ({@link LoraFiles#mismatch}: the
     * checks {@code llama_adapter_lora_init} makes, with a reason that names the misfit), then
     * {@code llama_adapter_lora_init} reads it. The adapter belongs to this model's arena:
     * {@code llama_model_free} frees it with the model ({@link LlamaLoraAdapter}).
     */
    @Override
    public LoraAdapter loadAdapter(Path file) {
        ensureWeights("it takes no adapters");
        GgufFile header;
        try {
            header = GgufReader.read(file);
            LoraFiles.mismatch(header, GgufReader.read(path)).ifPresent(why -> {
                throw new BackendException("the LoRA adapter " + file + " does not fit the model " + path + ": " + why);
            });
        } catch (GgufException e) {
            throw new BackendException("the LoRA adapter " + file + " cannot be read: " + e.getMessage(), e);
        }
        float alpha = header.metadata().values().get("adapter.lora.alpha") instanceof Number n ? n.floatValue() : 0f;
        try (Arena call = Arena.ofConfined()) {
            LlamaLog.takeLastError(); // only this call's errors
            MemorySegment raw = Llama.llama_adapter_lora_init(model, call.allocateFrom(file.toString()));
            if (raw.equals(MemorySegment.NULL)) {
                throw new BackendException(
                        "llama.cpp could not load the LoRA adapter " + file + ": " + LlamaLog.takeLastError());
            }
            return new LlamaLoraAdapter(this, raw.reinterpret(arena, null), file, alpha);
        }
    }

    /**
     * Loads the projector {@code mmproj} for this model (libmtmd from {@code libmtmd}): from then
     * on it is this model's, and {@link #close} frees it first. A model holds one projector.
     *
     * @throws BackendException when the model already has one, or the projector does not load
     *                          (see {@link LlamaProjector#load})
     */
    public synchronized LlamaProjector loadProjector(Path mmproj, Path libmtmd, int threads, boolean useGpu) {
        ensureOpen();
        if (projector != null) {
            throw new BackendException("model " + path + " already has the projector " + projector.path());
        }
        projector = LlamaProjector.load(this, mmproj, libmtmd, threads, useGpu);
        return projector;
    }

    /** Whether a projector that reads images was loaded with the model. */
    @Override
    public boolean vision() {
        LlamaProjector p = projector;
        return p != null && p.vision();
    }

    /** The projector loaded with {@link #loadProjector}, if any. */
    public Optional<LlamaProjector> projector() {
        return Optional.ofNullable(projector);
    }

    @Override
    public boolean audio() {
        LlamaProjector p = projector;
        return p != null && p.audio();
    }

    @Override
    public Optional<Path> projectorFile() {
        return projector().map(LlamaProjector::path);
    }

    @Override
    public MediaPrompt media(String prompt, List<ChatImage> images, boolean addSpecial) {
        LlamaProjector p = projector;
        if (p == null) {
            throw new BackendException("model " + path + " has no multimodal projector");
        }
        return p.tokenize(prompt, images, addSpecial, ChatImage.MAX_PIXELS);
    }

    void contextClosed() {
        openContexts.decrementAndGet();
    }

    /** The {@code llama_model *}, attached to this model's arena. */
    MemorySegment segment() {
        return model;
    }

    void ensureOpen() {
        if (closed.get()) {
            throw new BackendException("model " + path + " is closed");
        }
    }

    /**
     * Frees the weights. Harmless when already closed.
     *
     * @throws BackendException while a context of this model is still open, or while another
     *                          thread is inside a llama.cpp call on this model
     */
    @Override
    public void close() {
        int contexts = openContexts.get();
        if (contexts > 0) {
            throw new BackendException(
                    "model " + path + " still has " + contexts + " open context(s); close them before the model");
        }
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            LlamaProjector p = projector;
            if (p != null) {
                try {
                    p.close(); // libmtmd keeps the model's vocabulary: it goes first
                } catch (BackendException e) {
                    closed.set(false);
                    throw e;
                }
            }
            arena.close();
        } catch (IllegalStateException e) {
            closed.set(false);
            throw new BackendException(
                    "model " + path + " is in use by another thread; close it when that call returns", e);
        }
    }

    @Override
    public String toString() {
        return "LlamaModel[" + path + ", " + info.description() + "]";
    }

    private static Map<String, String> readMetadata(MemorySegment model) {
        int n = Llama.llama_model_meta_count(model);
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            int index = i;
            String key = string(128, buf -> Llama.llama_model_meta_key_by_index(model, index, buf, buf.byteSize()));
            String value =
                    string(256, buf -> Llama.llama_model_meta_val_str_by_index(model, index, buf, buf.byteSize()));
            map.put(key, value);
        }
        return Collections.unmodifiableMap(map);
    }

    /** Calls a snprintf-style function (returns the full length), growing the buffer once if it was short. */
    private static String string(int size, ToIntFunction<MemorySegment> call) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment buf = scratch.allocate(size);
            int n = call.applyAsInt(buf);
            if (n < 0) {
                return "";
            }
            if (n >= size) {
                buf = scratch.allocate(n + 1L);
                n = call.applyAsInt(buf);
            }
            return new String(buf.asSlice(0, Math.max(0, n)).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
        }
    }
}
