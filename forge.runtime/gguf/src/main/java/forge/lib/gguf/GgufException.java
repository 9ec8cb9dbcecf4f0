package forge.lib.gguf;

import forge.api.BackendException;

/**
 * A GGUF file could not be read or written: not GGUF, an unsupported version, a header that is
 * truncated or claims absurd sizes, tensor data beyond the end of the file, or a value of the
 * wrong type. The message names the file and what is wrong with it.
 */
public class GgufException extends BackendException {
    public GgufException(String message) {
        super(message);
    }

    public GgufException(String message, Throwable cause) {
        super(message, cause);
    }
}
