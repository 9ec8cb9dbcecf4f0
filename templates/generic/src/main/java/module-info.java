/**
 * The generic chat template: a model's own Jinja template, rendered by
 * {@code forge.template.jinja} as transformers renders it, when no family claims the model, and a
 * plain ChatML rendering when the model carries no template; also llama-server's built-in chat formats
 * by name ({@code --chat-template llama2}), each a bundled Jinja template that renders as llama.cpp's
 * {@code llama_chat_apply_template} does.
 *
 * @provides forge.api.template.ChatTemplateProvider
 */
module forge.template.generic {
    // forge.api comes with the toolkit, whose API speaks its types (requires transitive).
    requires forge.template.toolkit;
    requires forge.template.mustache;
    requires forge.template.jinja;

    provides forge.api.template.ChatTemplateProvider with
            forge.template.generic.GenericTemplates;
}
