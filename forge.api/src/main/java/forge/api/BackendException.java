package forge.api;

/** A backend could not do what was asked: a library that will not load, a model file that is not GGUF, a failed decode. */
public class BackendException extends ForgeException {
    public BackendException(String message) {
        super(message);
    }

    public BackendException(String message, Throwable cause) {
        super(message, cause);
    }
}
