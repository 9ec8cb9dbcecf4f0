package forge.api.template;

import forge.api.model.ModelDescriptor;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

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

    /**
     * The {@link Rule#NAME} claim of a family on a model: the first of the model's names (id, then
     * aliases) in which {@code variantOf} recognises one of the family's variants.
     */
    public static Optional<TemplateClaim> byName(ModelDescriptor model, Function<String, Optional<String>> variantOf) {
        for (String name : model.names()) {
            Optional<String> variant = variantOf.apply(name);
            if (variant.isPresent()) {
                return Optional.of(new TemplateClaim(variant.get(), Rule.NAME, 50, "model name '" + name + "'"));
            }
        }
        return Optional.empty();
    }
}
