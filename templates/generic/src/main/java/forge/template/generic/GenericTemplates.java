package forge.template.generic;

import forge.api.template.ChatTemplate;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import java.util.List;

/**
 * The fallback family. It claims no model: the runtime picks it when nothing else does. A model
 * that carries a Jinja chat template ({@code tokenizer.chat_template}) gets that template,
 * rendered by forge.template.jinja ({@link JinjaChatTemplate}); a model without one gets plain ChatML.
 */
public final class GenericTemplates implements ChatTemplateProvider {

    /** The ChatML fallback's variant name. */
    public static final String GENERIC = "generic";

    @Override
    public String family() {
        return "generic";
    }

    @Override
    public List<TemplateVariant> variants() {
        return List.of(new TemplateVariant(GENERIC, "the model's own Jinja template, else plain ChatML (<|im_start|>role ... <|im_end|>)"));
    }

    @Override
    public ChatTemplate create(String variant, TemplateContext context) {
        if (!GENERIC.equals(variant)) {
            throw new IllegalArgumentException("unknown variant '" + variant + "' of family generic");
        }
        // One instance per model: a model's own template is compiled once here and shared by all
        // of its requests; a model without one gets the shared ChatML fallback.
        return context.model().metadata().chatTemplate()
                .filter(source -> !source.isBlank())
                .<ChatTemplate>map(source -> new JinjaChatTemplate(GENERIC, source, context.bosToken(), context.eosToken()))
                .orElse(ChatMlTemplate.INSTANCE);
    }
}
