/**
 * An example chat template plugin: plain {@code User:}/{@code Assistant:} turns, for base models
 * that were never taught a chat format. It needs forge.api alone; copy it to start a plugin of
 * your own (see forge.api's module documentation for packaging and installing).
 *
 * @provides forge.api.template.ChatTemplateProvider the {@code plain} family, variant {@code plain-1}
 */
module com.example.plaintemplate {
    requires forge.api;

    provides forge.api.template.ChatTemplateProvider with
            com.example.plaintemplate.PlainTemplates;
}
