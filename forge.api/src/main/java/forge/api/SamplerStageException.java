package forge.api;

import java.util.Objects;

/**
 * A plugin's sampler stage failed while sampling a request: it threw, or wrote a logit no stage
 * can sample from. The plugin's fault, not the request's: the request ends with this error (a
 * 500 naming the stage), and the model and every other request go on.
 */
public class SamplerStageException extends SamplingException {
    private final String stage;

    public SamplerStageException(String stage, String message, Throwable cause) {
        super("sampler stage '" + stage + "' failed: " + message, cause);
        this.stage = Objects.requireNonNull(stage);
    }

    /** The stage's name. */
    public String stage() {
        return stage;
    }
}
