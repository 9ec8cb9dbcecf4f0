/**
 * ForgeLM's service provider interfaces and the value types they speak in.
 *
 * <p>A third-party plugin needs this module alone, and this module nothing but {@code java.base}, so
 * a plugin can be built against this one jar (the examples in {@code plugins/examples/} are). The
 * built-in plugins also use ForgeLM's libraries, which are not part of this contract: the GGUF
 * reader ({@code forge.lib.gguf}, the llama.cpp backend), the text library ({@code forge.lib.text},
 * through the toolkit) and the template toolkit with its Mustache and Jinja engines
 * ({@code forge.template.toolkit}, {@code forge.template.mustache}, {@code forge.template.jinja},
 * the family templates). Backends ({@link forge.api.backend.BackendProvider})
 * turn a GGUF file into a loaded model and run generation; chat templates
 * ({@link forge.api.template.ChatTemplateProvider}) render conversations to prompt text and parse
 * the model's output back; sampler providers ({@link forge.api.sampler.SamplerProvider}) add stages
 * to the sampler chain. How to write, package and install each: {@link forge.api}'s package
 * documentation. The runtime discovers them with {@link java.util.ServiceLoader}, in the
 * boot layer and in one child layer per plugin jar, so this module neither uses nor provides a
 * service itself.
 *
 * <ul>
 * <li>{@code forge.api}: the exception hierarchy shared by every module and plugin ({@link forge.api.ForgeException}).</li>
 * <li>{@code forge.api.backend}: the backend SPI, from a loaded model to contexts and samplers, and its
 *     closed sets ({@link forge.api.backend.KvCacheType}, {@link forge.api.backend.FlashAttention}).</li>
 * <li>{@code forge.api.model}: what the runtime knows about a model: its GGUF metadata and its names.</li>
 * <li>{@code forge.api.sampler}: {@link forge.api.sampler.SamplingParams}, what a request's sampling
 *     turns into before a backend builds its chain, and the sampler-stage SPI.</li>
 * <li>{@code forge.api.template}: the chat-template SPI.</li>
 * </ul>
 */
module forge.api {
    exports forge.api;
    exports forge.api.backend;
    exports forge.api.model;
    exports forge.api.sampler;
    exports forge.api.template;
}
