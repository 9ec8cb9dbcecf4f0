package forge.backend.llamacpp;

import forge.api.backend.Availability;
import forge.api.backend.Backend;
import forge.api.backend.BackendContext;
import forge.api.backend.BackendProvider;
import forge.backend.llamacpp.natives.LibrarySearch;
import forge.backend.llamacpp.natives.LlamaBackends;
import forge.backend.llamacpp.natives.LlamaNatives;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The {@code llama.cpp-cpu} backend provider. Stateless and cheap: nothing native happens until
 * {@link #create}; {@link #probe} only reads files (the libraries' ELF headers, {@code /proc/cpuinfo}).
 *
 * <p>The libraries are looked for in {@code <llama.home>/lib} when the {@code llama.home} setting
 * is given, else in {@code <home>/natives/llama/lib} (the jlink image's layout).
 */
public final class LlamaCppProvider implements BackendProvider {

    /** The name users select this backend by. */
    public static final String NAME = "llama.cpp-cpu";

    /** The backend setting naming the folder whose {@code lib/} holds the llama.cpp libraries. */
    public static final String LLAMA_HOME = "llama.home";

    public LlamaCppProvider() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "llama.cpp v0.5.0 on the CPU (prebuilt by node-llama-cpp 3.22.1), through FFM";
    }

    /**
     * Usable when the libraries are there, are x86-64 ELF and every library they need is found:
     * read from the files, nothing loaded (the verdict would be the same, and a loaded llama.cpp
     * cannot be unloaded, nor a second one loaded beside it).
     */
    @Override
    public Availability probe(BackendContext context) {
        Path dir = libraryDirectory(context);
        try {
            LlamaNatives natives = LlamaNatives.in(dir);
            var problem = natives.problem(LibrarySearch.system(System.getenv()));
            if (problem.isPresent()) {
                return Availability.unusable(problem.get() + " (run plugins/llamacpp/natives.sh, or set llama.home)");
            }
            return Availability.usable("llama.cpp v0.5.0 natives in " + dir + " ("
                    + natives.computeBackends().size()
                    + " compute backends; every needed library found; loaded only when chosen); CPU: " + cpuFeatures());
        } catch (RuntimeException e) {
            return Availability.unusable(e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    @Override
    public Backend create(BackendContext context) {
        return LlamaBackends.create(NAME, LlamaNatives.in(libraryDirectory(context)), context);
    }

    /** Where this provider looks for the libraries, as an absolute path. */
    public static Path libraryDirectory(BackendContext context) {
        Path dir = context.setting(LLAMA_HOME)
                .map(home -> Path.of(home).resolve("lib"))
                .orElseGet(
                        () -> context.home().resolve("natives").resolve("llama").resolve("lib"));
        return dir.toAbsolutePath().normalize();
    }

    /** The instruction-set levels ggml's CPU variants choose by, as {@code /proc/cpuinfo} lists them. */
    static String cpuFeatures() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            List<String> flags = lines.filter(l -> l.startsWith("flags"))
                    .findFirst()
                    .map(l -> List.of(l.substring(l.indexOf(':') + 1).strip().split("\\s+")))
                    .orElse(List.of());
            List<String> shown = Stream.of(
                            "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile")
                    .filter(flags::contains)
                    .toList();
            return shown.isEmpty() ? "x86-64 baseline" : String.join(" ", shown).toLowerCase(Locale.ROOT);
        } catch (IOException | UncheckedIOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }
}
