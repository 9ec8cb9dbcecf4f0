package forge.backend.llamacpp.ffm;

import forge.api.BackendException;

/** The llama.cpp libraries could not be loaded: missing, unloadable, or another version. */
public final class LlamaLoadException extends BackendException {
    public LlamaLoadException(String message) {
        super(message);
    }

    public LlamaLoadException(String message, Throwable cause) {
        super(message, cause);
    }
}
