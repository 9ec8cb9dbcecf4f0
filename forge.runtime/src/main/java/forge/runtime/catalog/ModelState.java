package forge.runtime.catalog;

/**
 * Where a model is in its lifecycle (the package documentation draws it). {@link #value()} is the
 * name {@code GET /models} shows, as llama-server's router names its states.
 */
public sealed interface ModelState {

    /** {@code unloaded}, {@code loading} (also while reloading), {@code loaded}, {@code failed} or {@code unavailable}. */
    default String value() {
        return switch (this) {
            case Unloaded _ -> "unloaded";
            case Loading _, Reloading _ -> "loading";
            case Loaded _ -> "loaded";
            case Failed _ -> "failed";
            case Unavailable _ -> "unavailable";
        };
    }

    /** Registered, not in memory: the next request loads it. */
    record Unloaded() implements ModelState {}

    /**
     * Being loaded on the loader thread.
     *
     * @param progress the fraction of the weights read, 0 to 1
     * @param waiting  the requests waiting for it
     */
    record Loading(double progress, int waiting) implements ModelState {}

    /** In memory with its engine. */
    record Loaded(ServedModel model) implements ModelState {}

    /**
     * Its mapped file was changed in place while it was loaded: requests get 503 with
     * {@code Retry-After} until the file has stayed unchanged for a while; then it is
     * {@link Loading} again, as any model being loaded (or {@link Failed}, with the reason). Shown as
     * {@code loading}, with {@code reloading} and the reason.
     *
     * @param reason   what changed
     * @param retiring the old model, until no request holds it and it is freed; null once freed
     * @param settled  whether the file has settled, so that freeing the old model starts the reload
     */
    record Reloading(String reason, ServedModel retiring, boolean settled) implements ModelState {}

    /**
     * Its last load failed: not tried again until its file changes.
     *
     * @param reason what the load said
     * @param stamp  the file's size and modification time when it failed
     */
    record Failed(String reason, String stamp) implements ModelState {}

    /** Registration found it unusable (not GGUF, truncated, unknown architecture, a template that does not parse). */
    record Unavailable(String reason) implements ModelState {}
}
