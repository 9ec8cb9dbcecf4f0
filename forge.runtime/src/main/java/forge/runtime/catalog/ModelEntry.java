package forge.runtime.catalog;

import forge.api.ForgeException;
import forge.api.model.ModelDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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

    /** The bytes of its files. */
    public long fileBytes() {
        return fileBytes;
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

    // ---- the catalog's side, all under this entry's monitor

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
