/**
 * ForgeLM's runtime: plugin discovery, GGUF files and synthetic models, the model catalog and
 * the inference engine.
 *
 * @uses forge.api.backend.BackendProvider
 * @uses forge.api.template.ChatTemplateProvider
 */
module forge.runtime {
    requires transitive forge.api;
    requires org.slf4j;

    exports forge.runtime;
    exports forge.runtime.catalog;
    exports forge.runtime.engine;
    exports forge.runtime.gguf;
    exports forge.runtime.plugin;
    exports forge.runtime.synth;

    uses forge.api.backend.BackendProvider;
    uses forge.api.template.ChatTemplateProvider;
}
