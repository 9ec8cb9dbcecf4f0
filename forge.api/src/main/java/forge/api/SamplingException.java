package forge.api;

/**
 * A sampler found no token that the request's constraints allow: its grammar admits nothing the
 * vocabulary can write from here, or its logit biases ban every token the grammar admits. The
 * request's fault, not the backend's: the request ends with this error, and the model, its
 * context and every other sequence go on.
 */
public class SamplingException extends BackendException {
    public SamplingException(String message) {
        super(message);
    }

    public SamplingException(String message, Throwable cause) {
        super(message, cause);
    }
}
