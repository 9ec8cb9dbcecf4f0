package forge.template.generic;

import forge.api.TemplateException;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import forge.template.toolkit.TemplateFamily;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The fallback family. It claims no model: the runtime picks it when nothing else does. A model
 * that carries a Jinja chat template ({@code tokenizer.chat_template}) gets that template,
 * rendered by forge.template.jinja ({@link JinjaChatTemplate}); a model without one gets plain ChatML.
 *
 * <p>It also renders llama-server's built-in chat formats by name ({@code --chat-template llama2}),
 * for users coming from llama-server: {@code chatml} is this family's ChatML, every other name is a
 * bundled Jinja template that renders as llama.cpp's {@code llm_chat_apply_template}
 * ({@link LlamaServerTemplate}). Where a family has a variant of the same name ({@code kimi-k2}),
 * the family's wins: the runtime asks the other families before this one.
 */
public final class GenericTemplates extends TemplateFamily {

    /** The ChatML fallback's variant name. */
    public static final String GENERIC = "generic";

    /** llama-server's name for ChatML, which is this family's own ChatML. */
    public static final String CHATML = "chatml";

    public GenericTemplates() {
        super("generic", variantList());
    }

    private static List<TemplateVariant> variantList() {
        List<TemplateVariant> variants = new ArrayList<>();
        variants.add(new TemplateVariant(
                GENERIC, "the model's own Jinja template, else plain ChatML (<|im_start|>role ... <|im_end|>)"));
        variants.add(
                new TemplateVariant(CHATML, "llama-server's chatml: plain ChatML, whatever the model's own template"));
        for (String name : LlamaServerTemplate.FORMATS.keySet()) {
            variants.add(new TemplateVariant(
                    name, "llama-server's built-in " + name + " format (as llama.cpp renders it without --jinja)"));
        }
        return List.copyOf(variants);
    }

    @Override
    public ChatTemplate create(String variant, TemplateContext context) {
        if (CHATML.equals(requireVariant(variant))) {
            return ChatMlTemplate.CHATML;
        }
        if (LlamaServerTemplate.FORMATS.containsKey(variant)) {
            return LlamaServerTemplate.of(variant);
        }
        // One instance per model: a model's own template is compiled once here and shared by all
        // of its requests; a model without one gets the shared ChatML fallback.
        return context.model()
                .metadata()
                .chatTemplate()
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
