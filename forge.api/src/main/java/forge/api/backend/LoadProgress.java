package forge.api.backend;

/** Progress of a model load, called on the loading thread. Must not throw. */
@FunctionalInterface
public interface LoadProgress {

    /** Ignores progress and never aborts. */
    LoadProgress NONE = fraction -> true;

    /**
     * @param fraction between 0 and 1
     * @return {@code false} to abort the load
     */
    boolean update(float fraction);
}
