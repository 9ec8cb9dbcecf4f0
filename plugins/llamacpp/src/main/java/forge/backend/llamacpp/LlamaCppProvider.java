package forge.backend.llamacpp;

import forge.api.BackendException;
import forge.api.backend.Availability;
import forge.api.backend.Backend;
import forge.api.backend.BackendContext;
import forge.api.backend.BackendProvider;
import forge.backend.llamacpp.ffm.LlamaLibrary;
import java.nio.file.Path;

/**
 * The {@code llama.cpp-cpu} backend provider. Stateless and cheap: nothing native happens until
 * {@link #probe} or {@link #create}.
 *
 * <p>The libraries are looked for in {@code <llama.home>/lib} when the {@code llama.home} setting
 * is given, else in {@code <home>/natives/llama/lib} (the jlink image's layout).
 */
public final class LlamaCppProvider implements BackendProvider {

    /** The name users select this backend by. */
    public static final String NAME = "llama.cpp-cpu";

    /** The backend setting naming the folder whose {@code lib/} holds the llama.cpp libraries. */
    public static final String LLAMA_HOME = "llama.home";

    public LlamaCppProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "llama.cpp v0.5.0 on the CPU (prebuilt by node-llama-cpp 3.22.1), through FFM";
    }

    @Override
    public Availability probe(BackendContext context) {
        Path dir = libraryDirectory(context);
        try {
            LlamaLibrary lib = LlamaLibrary.load(dir);
            return Availability.usable("llama.cpp v0.5.0 (" + lib.version() + ") from " + lib.directory() + ": "
                    + lib.systemInfo());
        } catch (RuntimeException | LinkageError e) {
            return Availability.unusable(e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    @Override
    public Backend create(BackendContext context) {
        Path dir = libraryDirectory(context);
        try {
            return new LlamaCppBackend(LlamaLibrary.load(dir));
        } catch (LinkageError e) {
            throw new BackendException("cannot load llama.cpp from " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Where this provider looks for the libraries, as an absolute path. */
    public static Path libraryDirectory(BackendContext context) {
        Path dir = context.setting(LLAMA_HOME)
                .map(home -> Path.of(home).resolve("lib"))
                .orElseGet(() -> context.home().resolve("natives").resolve("llama").resolve("lib"));
        return dir.toAbsolutePath().normalize();
    }
}
