/**
 * The generic chat template: a plain ChatML rendering for models no family claims.
 *
 * @provides forge.api.template.ChatTemplateProvider
 */
module forge.template.generic {
    requires forge.api;
    // Mustache.java ships only an Automatic-Module-Name; dist/ gives it a descriptor for jlink.
    requires com.github.mustachejava;

    provides forge.api.template.ChatTemplateProvider with forge.template.generic.GenericTemplates;
}
