package forge.runtime.catalog;

import forge.api.template.ChatTemplateProvider;
import java.util.Objects;

/**
 * The chat template chosen for a model, and the rule that chose it.
 *
 * @param provider the family's provider
 * @param variant  the variant's name
 * @param rule     {@code configured}, {@code metadata}, {@code name} or {@code fallback}
 * @param reason   what matched, for the startup log and {@code /v1/models}
 */
public record TemplateSelection(ChatTemplateProvider provider, String variant, String rule, String reason) {
    public TemplateSelection {
        Objects.requireNonNull(provider);
        Objects.requireNonNull(variant);
        Objects.requireNonNull(rule);
        Objects.requireNonNull(reason);
    }
}
