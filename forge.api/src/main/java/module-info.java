/**
 * ForgeLM's service provider interfaces and the value types they speak in.
 *
 * <p>A plugin depends on this module alone. Backends ({@link forge.api.backend.BackendProvider}) turn a
 * GGUF file into a loaded model and run generation; chat templates
 * ({@link forge.api.template.ChatTemplateProvider}) render conversations to prompt text and parse
 * the model's output back. The runtime discovers both with {@link java.util.ServiceLoader}, in the
 * boot layer and in one child layer per plugin jar.
 */
module forge.api {
    exports forge.api;
    exports forge.api.backend;
    exports forge.api.model;
    exports forge.api.sampler;
    exports forge.api.template;
}
