package forge.api.template;

import java.util.Objects;

/**
 * A provider's claim on a model.
 *
 * @param variant    the variant it would render the model with
 * @param rule       which rule matched: {@link Rule#METADATA} outranks {@link Rule#NAME}
 * @param confidence breaks ties between claims of the same rule; higher wins
 * @param reason     what matched, for the startup log and {@code /v1/models}
 */
public record TemplateClaim(String variant, Rule rule, int confidence, String reason) {

    /** How a claim was made, strongest first. */
    public enum Rule {
        /** GGUF metadata: the chat template's fingerprint, the architecture, the model's name. */
        METADATA,
        /** The model id or an alias. */
        NAME
    }

    public TemplateClaim {
        Objects.requireNonNull(variant);
        Objects.requireNonNull(rule);
        Objects.requireNonNull(reason);
    }
}
