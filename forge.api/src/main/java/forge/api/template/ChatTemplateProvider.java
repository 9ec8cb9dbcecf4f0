package forge.api.template;

import forge.api.model.ModelDescriptor;
import java.util.List;
import java.util.Optional;

/**
 * A chat-template plugin for one model family, found by {@link java.util.ServiceLoader}.
 *
 * <p>Stateless and cheap to construct. The runtime asks every provider to {@link #claim} a model
 * (from its GGUF metadata and names) and {@link #create creates} the variant it picked, unless the
 * user named one with {@code --template}.
 *
 * {@snippet :
 * public final class QwenTemplates implements ChatTemplateProvider {
 *     public String family() { return "qwen"; }
 *     public List<TemplateVariant> variants() { return List.of(new TemplateVariant("qwen2.5", "Qwen 2.5 ChatML")); }
 *     public ChatTemplate create(String variant, TemplateContext ctx) { return new QwenTemplate(variant, ctx); }
 * }
 * }
 */
public interface ChatTemplateProvider {

    /** The family, such as {@code qwen}, {@code llama} or {@code generic}. */
    String family();

    /** The variants this provider renders; their names are unique across all providers. */
    List<TemplateVariant> variants();

    /**
     * Creates the named variant for one model.
     *
     * @throws IllegalArgumentException when {@code variant} is not one of {@link #variants()}
     */
    ChatTemplate create(String variant, TemplateContext context);

    /**
     * Whether this family recognises the model, and which variant it would use. The default claims
     * nothing, so a provider is chosen only by name.
     */
    default Optional<TemplateClaim> claim(ModelDescriptor model) {
        return Optional.empty();
    }

    /** The plugin's version, shown by {@code GET /v1/templates}. */
    default String version() {
        return getClass().getModule().getDescriptor() != null
                ? getClass().getModule().getDescriptor().rawVersion().orElse("unversioned")
                : "unversioned";
    }
}
