/**
 * The generic chat template: a model's own Jinja template rendered with Jinjava when no family
 * claims the model, and a plain ChatML rendering when the model carries no template.
 *
 * @provides forge.api.template.ChatTemplateProvider
 */
module forge.template.generic {
    requires forge.api;
    requires forge.template.toolkit;
    requires forge.template.mustache;
    // Jinjava ships no descriptor at all; dist/ links it (see dist/README.md).
    requires jinjava;
    // Jinjava's expression resolvers speak java.beans (FeatureDescriptor, Introspector).
    requires java.desktop;

    // Jinjava calls the template globals (raise_exception, strftime_now, namespace) and reads
    // loop.previtem/nextitem by reflection.
    opens forge.template.generic.jinja to jinjava;

    provides forge.api.template.ChatTemplateProvider with forge.template.generic.GenericTemplates;
}
