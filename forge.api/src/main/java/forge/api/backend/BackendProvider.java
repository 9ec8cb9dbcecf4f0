package forge.api.backend;

/**
 * A backend plugin, found by {@link java.util.ServiceLoader}.
 *
 * <p>The provider is stateless and cheap to construct: its constructor never touches native code.
 * The runtime asks every provider for its {@link #probe(BackendContext) verdict}, logs each one,
 * and {@link #create(BackendContext) creates} the usable provider with the highest
 * {@link #priority()}, or the one the user names.
 *
 * {@snippet :
 * public final class CpuBackendProvider implements BackendProvider {
 *     public String name() { return "llama.cpp-cpu"; }
 *     public Availability probe(BackendContext ctx) { ... read the files, ask nothing that stays loaded ... }
 *     public Backend create(BackendContext ctx) { return new LlamaBackend(ctx); }
 * }
 * }
 */
public interface BackendProvider {

    /** The name users select the backend by, such as {@code llama.cpp-cpu}. */
    String name();

    /**
     * Whether this backend can run here, with the reason when it cannot (a CUDA backend on a
     * machine without a GPU says so). Asks only what the verdict needs (files present and
     * loadable, a driver's devices, CPU features) and leaves nothing behind: it loads no library
     * that would stay loaded (a native probe that must, runs in a child process), because every
     * provider is probed and only the chosen one is created. Never throws.
     */
    Availability probe(BackendContext context);

    /** Creates the backend; the runtime calls this only after a usable {@link #probe}. */
    Backend create(BackendContext context);

    /** Higher wins among usable providers; a GPU backend outranks the CPU one. */
    default int priority() {
        return 0;
    }

    /** One line for {@code forge plugins}. */
    default String description() {
        return name();
    }
}
