package forge.lib.gguf;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds llama.cpp's vocab-only GGUF files for tests: first under the source the build caches
 * ({@code <forge.llama.home>/src/models/}), then, until every build machine has that cache,
 * under {@code /work/cache/llama.cpp/models/}. A file in neither place fails the test, never
 * skips it.
 */
public final class LlamaModels {
    private static final Path FALLBACK = Path.of("/work/cache/llama.cpp/models");

    private LlamaModels() {}

    /** The vocab-only file {@code name}, such as {@code ggml-vocab-qwen2.gguf}. */
    public static Path file(String name) {
        String home = System.getProperty("forge.llama.home");
        Path primary = home == null ? null : Path.of(home, "src", "models", name);
        if (primary != null && Files.isRegularFile(primary)) {
            return primary;
        }
        Path fallback = FALLBACK.resolve(name);
        if (Files.isRegularFile(fallback)) {
            return fallback;
        }
        return fail("llama.cpp's " + name + " is in neither " + primary + " (system property forge.llama.home=" + home
                + "; the build's natives script caches llama.cpp's source there) nor " + fallback);
    }
}
