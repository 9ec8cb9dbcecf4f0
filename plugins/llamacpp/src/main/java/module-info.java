/**
 * ForgeLM's llama.cpp CPU backend: the prebuilt llama.cpp v0.5.0 libraries, bound with the Foreign
 * Function &amp; Memory API (no JNI); and the one binding every llama.cpp backend uses.
 *
 * <p>The runtime reaches the backend only through the {@link forge.api.backend.BackendProvider}
 * service. The one package exported, {@code forge.backend.llamacpp.natives}, lets another
 * llama.cpp backend plugin (the CUDA one) hand this binding a natives folder instead of copying it. The libraries are loaded by absolute path
 * from {@code <llama.home>/lib} (the {@code llama.home} backend setting) or from
 * {@code <forge home>/natives/llama/lib}; the module needs native access
 * ({@code --enable-native-access=forge.backend.llamacpp}, or
 * {@code ModuleLayer.Controller.enableNativeAccess} for a plugin layer).
 *
 * @provides forge.api.backend.BackendProvider the {@code llama.cpp-cpu} backend
 */
module forge.backend.llamacpp {
    // Its exported natives package hands out forge.api's types (a Backend, a BackendContext).
    requires transitive forge.api;
    // The GGUF reader: -ngl auto places layers by their tensors' sizes.
    requires forge.lib.gguf;
    requires org.slf4j;

    // Unqualified on purpose: the CUDA plugin lives in a child layer, and a qualified export names
    // only modules of the same or a parent layer (it is resolved when this boot-layer module is
    // defined, before any plugin layer exists). The package is small: natives, a probe, a factory.
    exports forge.backend.llamacpp.natives;

    provides forge.api.backend.BackendProvider with
            forge.backend.llamacpp.LlamaCppProvider;
}
