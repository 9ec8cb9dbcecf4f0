/**
 * ForgeLM's llama.cpp CPU backend: the prebuilt llama.cpp v0.5.0 libraries, bound with the Foreign
 * Function &amp; Memory API (no JNI).
 *
 * <p>Exports nothing: the runtime reaches the backend only through the
 * {@link forge.api.backend.BackendProvider} service. The libraries are loaded by absolute path
 * from {@code <llama.home>/lib} (the {@code llama.home} backend setting) or from
 * {@code <forge home>/natives/llama/lib}; the module needs native access
 * ({@code --enable-native-access=forge.backend.llamacpp}, or
 * {@code ModuleLayer.Controller.enableNativeAccess} for a plugin layer).
 *
 * @provides forge.api.backend.BackendProvider the {@code llama.cpp-cpu} backend
 */
module forge.backend.llamacpp {
    requires forge.api;
    requires org.slf4j;

    provides forge.api.backend.BackendProvider with forge.backend.llamacpp.LlamaCppProvider;
}
