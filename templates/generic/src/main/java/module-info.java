/**
 * The generic chat template: a model's own Jinja template, rendered by
 * {@code forge.template.jinja} as transformers renders it, when no family claims the model, and a
 * plain ChatML rendering when the model carries no template.
 *
 * @provides forge.api.template.ChatTemplateProvider
 */
module forge.template.generic {
    requires forge.api;
    requires forge.template.toolkit;
    requires forge.template.mustache;
    requires forge.template.jinja;

    provides forge.api.template.ChatTemplateProvider with forge.template.generic.GenericTemplates;
}
