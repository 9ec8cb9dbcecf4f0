package forge.template.generic;

import forge.api.TemplateException;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import java.util.List;
import java.util.Optional;

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
                .map(source -> compile(source, context))
                .orElse(ChatMlTemplate.INSTANCE);
    }

    /**
     * The model's own template, or when it does not parse one that refuses every conversation with
     * the parser's reason and line: the model is listed and answers 400 with that reason, and the
     * server's other models are served (a failed load would take the server's start down).
     */
    private static ChatTemplate compile(String source, TemplateContext context) {
        try {
            return new JinjaChatTemplate(GENERIC, source, context.bosToken(), context.eosToken());
        } catch (TemplateException e) {
            return new Unusable(e.getMessage());
        }
    }

    /** A model's own template that does not parse. */
    record Unusable(String reason) implements ChatTemplate {
        @Override
        public String name() {
            return GENERIC;
        }

        @Override
        public String render(ChatPrompt prompt) {
            throw new TemplateException(reason);
        }

        @Override
        public Optional<String> unusable() {
            return Optional.of(reason);
        }
    }
}
