package forge.api.template;

import forge.api.model.ModelDescriptor;
import java.util.Objects;

/**
 * What a template is created for: the model, and the text of its special tokens. A record, so
 * plugins use it but cannot implement it.
 *
 * @param model    the model
 * @param bosToken the text of the model's BOS token, or empty
 * @param eosToken the text of the model's EOS token, or empty
 */
public record TemplateContext(ModelDescriptor model, String bosToken, String eosToken) {
    public TemplateContext {
        Objects.requireNonNull(model);
        Objects.requireNonNull(bosToken);
        Objects.requireNonNull(eosToken);
    }
}
