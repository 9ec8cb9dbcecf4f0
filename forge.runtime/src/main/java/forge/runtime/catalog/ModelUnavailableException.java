package forge.runtime.catalog;

import forge.api.ForgeException;

/**
 * A request named a model that cannot serve it now: the HTTP layer answers a 4xx naming the
 * reason ({@link Kind#UNAVAILABLE}, {@link Kind#FAILED}) or a 503 to retry ({@link Kind#LOADING}).
 */
public final class ModelUnavailableException extends ForgeException {

    /** Why. */
    public enum Kind {
        /** Registration found the file unusable. */
        UNAVAILABLE,
        /** Its load failed; it is not tried again until the file changes. */
        FAILED,
        /** It is still loading after the wait a request is given. */
        LOADING
    }

    private final String model;
    private final Kind kind;

    public ModelUnavailableException(String model, Kind kind, String message) {
        super(message);
        this.model = model;
        this.kind = kind;
    }

    /** The model's id. */
    public String model() {
        return model;
    }

    public Kind kind() {
        return kind;
    }
}
