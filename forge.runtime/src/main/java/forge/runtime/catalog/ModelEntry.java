package forge.runtime.catalog;

import forge.api.ForgeException;
import forge.api.model.ModelDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A model the catalog knows, loaded or not: where it came from, its state in the lifecycle, and
 * who uses it. Its monitor guards the state, the lease count and the waiters (see the package
 * documentation); the catalog alone changes them.
 */
public final class ModelEntry {

    private volatile ModelDescriptor descriptor;
    private final TemplateSelection template; // null when registration could not choose one
    private final String source;
    private final List<Path> parts;
    private final long fileBytes;
    private final String templateError; // the chosen template's own reason it cannot render; null when it can
    private final List<AdapterFile> adapters = new CopyOnWriteArrayList<>();
    /** The multimodal projector loaded with it (found beside it, or configured); null for none. */
    private volatile Path projector;

    // guarded by this
    private ModelState state;
    private int users;
    private int waiting;
    private long lastUsed = System.nanoTime();
    private KeepAlive keepAlive; // the last request's keep_alive; null for the catalog's default
    private boolean unloadWhenIdle;
    private CompletableFuture<ServedModel> loading;
    private long kvBytes;
    private int loads;
    private float[] adapterScales = new float[0]; // by adapter index: what a request that names no lora applies

    ModelEntry(
            ModelDescriptor descriptor,
            TemplateSelection template,
            String source,
            List<Path> parts,
            ModelState state,
            String templateError) {
        this.descriptor = Objects.requireNonNull(descriptor);
        this.templateError = templateError;
        this.template = template;
        this.source = Objects.requireNonNull(source);
        this.parts = List.copyOf(parts);
        this.state = Objects.requireNonNull(state);
        long bytes = 0;
        for (Path p : parts) {
            try {
                bytes += Files.size(p);
            } catch (IOException e) {
                // a part that is gone counts nothing; registration has made the model unavailable
            }
        }
        this.fileBytes = bytes;
    }

    public ModelDescriptor descriptor() {
        return descriptor;
    }

    public String id() {
        return descriptor.id();
    }

    /** The source that found it: {@code file}, {@code folder}, {@code ollama}, {@code lmstudio} or {@code hf}. */
    public String source() {
        return source;
    }

    /** Its files: one, or every part of a split model. */
    public List<Path> parts() {
        return parts;
    }

    /** The bytes of its files, its projector's included: what loading it takes from memory. */
    public long fileBytes() {
        Path p = projector;
        if (p == null) {
            return fileBytes;
        }
        try {
            return fileBytes + Files.size(p);
        } catch (IOException e) {
            return fileBytes; // a projector that is gone fails the load, with the reason
        }
    }

    /** The multimodal projector ({@code mmproj-*.gguf}) served with it, if any: it then reads images. */
    public Optional<Path> projector() {
        return Optional.ofNullable(projector);
    }

    /** Serves it with {@code file} as its projector from its next load on; null for none. */
    void projector(Path file) {
        this.projector = file;
    }

    /**
     * The chat template chosen for this model, and why.
     *
     * @throws ForgeException for an unavailable model no template could be chosen for
     */
    public TemplateSelection template() {
        if (template == null) {
            throw new ForgeException("no chat template was chosen for " + id() + ": " + reason().orElse("unavailable"));
        }
        return template;
    }

    /** The chat template, when one was chosen (an unavailable model may have none). */
    public Optional<TemplateSelection> templateSelection() {
        return Optional.ofNullable(template);
    }

    /** Why its chat template cannot render (its own Jinja does not parse, say), when that made it unavailable. */
    public Optional<String> templateError() {
        return Optional.ofNullable(templateError);
    }

    /** Where it is in its lifecycle now. */
    public synchronized ModelState state() {
        return state;
    }

    /** False for a model registration found unusable, or whose load failed (until its file changes). */
    public boolean available() {
        ModelState s = state();
        return !(s instanceof ModelState.Unavailable) && !(s instanceof ModelState.Failed);
    }

    /** Why it is not available; empty when it is. */
    public Optional<String> reason() {
        return switch (state()) {
            case ModelState.Unavailable u -> Optional.of(u.reason());
            case ModelState.Failed f -> Optional.of(f.reason());
            default -> Optional.empty();
        };
    }

    /** The served model, when it is loaded. */
    public Optional<ServedModel> served() {
        return state() instanceof ModelState.Loaded l ? Optional.of(l.model()) : Optional.empty();
    }

    /** The requests using it now. */
    public synchronized int users() {
        return users;
    }

    /** The bytes it takes in memory when loaded: its files and, once known, its KV cache. */
    public synchronized long memoryBytes() {
        return fileBytes + kvBytes;
    }

    /** The last request's {@code keep_alive}, when it gave one. */
    public synchronized Optional<KeepAlive> keepAlive() {
        return Optional.ofNullable(keepAlive);
    }

    /** When a request last used it, on {@link System#nanoTime()}'s scale. */
    public synchronized long lastUsed() {
        return lastUsed;
    }

    /** Its LoRA adapters, by index (llama-server's adapter {@code id}). */
    public List<AdapterFile> adapters() {
        return List.copyOf(adapters);
    }

    /** The index of the adapter served under model id {@code name}, if it has one. */
    public Optional<Integer> adapterNamed(String name) {
        List<AdapterFile> all = adapters();
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).id().equals(name)) {
                return Optional.of(i);
            }
        }
        return Optional.empty();
    }

    /**
     * The scale of each adapter, by index, that a request naming no {@code lora} applies: 1 (or the
     * {@code --lora-scaled} scale) for an adapter given at start, 0 for one found beside the model,
     * as {@code POST /lora-adapters} last set them.
     */
    public synchronized float[] adapterScales() {
        return adapterScales.clone();
    }

    /**
     * Sets the scales of {@link #adapterScales()} ({@code POST /lora-adapters}): each adapter listed
     * gets its scale, the others 0, as llama-server does.
     *
     * @throws IllegalArgumentException for an index that is no adapter of this model, or a scale that is not finite
     */
    public synchronized void adapterScales(Map<Integer, Float> scales) {
        float[] next = new float[adapterScales.length];
        scales.forEach((index, scale) -> {
            if (index < 0 || index >= next.length) {
                throw new IllegalArgumentException("no adapter " + index + ": " + id() + " has " + next.length
                        + " (ids 0 to " + (next.length - 1) + ")");
            }
            if (!Float.isFinite(scale)) {
                throw new IllegalArgumentException("the scale of adapter " + index + " is not a finite number");
            }
            next[index] = scale;
        });
        adapterScales = next;
    }

    // ---- the catalog's side, all under this entry's monitor

    /** Adds an adapter with the scale requests that name none apply. */
    synchronized void addAdapter(AdapterFile adapter, float scale) {
        adapters.add(adapter);
        adapterScales = Arrays.copyOf(adapterScales, adapterScales.length + 1);
        adapterScales[adapterScales.length - 1] = scale;
    }

    synchronized void descriptor(ModelDescriptor d) {
        this.descriptor = d;
    }

    synchronized void state(ModelState s) {
        this.state = s;
    }

    synchronized CompletableFuture<ServedModel> loading() {
        return loading;
    }

    synchronized void loading(CompletableFuture<ServedModel> f) {
        this.loading = f;
        loads++;
    }

    /** How many loads were started since registration: concurrent requests for an unloaded model start one. */
    public synchronized int loads() {
        return loads;
    }

    synchronized int waiting() {
        return waiting;
    }

    synchronized void waiting(int delta) {
        waiting += delta;
        if (state instanceof ModelState.Loading l) {
            state = new ModelState.Loading(l.progress(), waiting);
        }
    }

    synchronized void users(int delta) {
        users += delta;
        lastUsed = System.nanoTime();
    }

    synchronized void keepAlive(KeepAlive k) {
        this.keepAlive = k;
    }

    synchronized boolean unloadWhenIdle() {
        return unloadWhenIdle;
    }

    synchronized void unloadWhenIdle(boolean on) {
        this.unloadWhenIdle = on;
    }

    synchronized void kvBytes(long bytes) {
        this.kvBytes = bytes;
    }

    /** The file's size and modification time now: a failed load is tried again once this changes. */
    String stamp() {
        StringBuilder s = new StringBuilder();
        for (Path p : parts) {
            try {
                s.append(Files.size(p))
                        .append('@')
                        .append(Files.getLastModifiedTime(p).toMillis())
                        .append(';');
            } catch (IOException e) {
                s.append("missing;");
            }
        }
        return s.toString();
    }
}
