package forge.template.generic;

import forge.api.template.ChatTemplate;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import java.util.List;

/**
 * The fallback family. It claims no model: the runtime picks it when nothing else does.
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
        return List.of(new TemplateVariant(GENERIC, "plain ChatML (<|im_start|>role ... <|im_end|>)"));
    }

    @Override
    public ChatTemplate create(String variant, TemplateContext context) {
        if (!GENERIC.equals(variant)) {
            throw new IllegalArgumentException("unknown variant '" + variant + "' of family generic");
        }
        return ChatMlTemplate.INSTANCE;
    }
}
