/**
 * ForgeLM's runtime: plugin discovery, the model catalog and the inference engine.
 *
 * <p>It finds backends, chat templates and sampler stages in the boot layer and in one child module layer per
 * plugin jar ({@link forge.runtime.plugin.PluginRegistry}), chooses the backend, keeps the models
 * the server answers for ({@link forge.runtime.catalog.ModelCatalog}) and runs each loaded model on
 * an engine thread with continuous batching ({@link forge.runtime.engine.Engine}). It calls no
 * native code itself, but needs native access all the same
 * ({@code --enable-native-access=forge.runtime}): granting it to a plugin's layer
 * ({@code ModuleLayer.Controller.enableNativeAccess}) is allowed only to a module that has it.
 *
 * @uses forge.api.backend.BackendProvider
 * @uses forge.api.template.ChatTemplateProvider
 * @uses forge.api.sampler.SamplerProvider
 */
module forge.runtime {
    // Its API speaks forge.api's types (backends, templates, sampling): a user of the runtime needs them too.
    requires transitive forge.api;
    // The catalog reads each model file's GGUF header; no GGUF type appears in this module's API.
    requires forge.lib.gguf;
    requires org.slf4j;

    exports forge.runtime;
    exports forge.runtime.catalog;
    exports forge.runtime.engine;
    exports forge.runtime.plugin;

    uses forge.api.backend.BackendProvider;
    uses forge.api.template.ChatTemplateProvider;
    uses forge.api.sampler.SamplerProvider;
}
