package forge.backend.llamacpp.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CpuVariantsTest {

    private static Path lib() {
        return Path.of(System.getProperty("forge.llama.home")).resolve("lib");
    }

    @Test
    void picksAVariantThatRunsHereAndRemembersIt(@TempDir Path home) throws Exception {
        Optional<Path> first = CpuVariants.best(lib(), home);
        assertTrue(first.isPresent(), "the CPU package has a variant for this machine");
        assertTrue(first.get().getFileName().toString().startsWith("libggml-cpu-"));
        Path cacheDir = home.resolve(".cache/forge/cpu-backend");
        try (var files = Files.list(cacheDir)) {
            Path remembered = files.findFirst().orElseThrow();
            assertEquals(first.get().getFileName().toString(), Files.readString(remembered));
            // A later start reads the cache instead of opening every variant.
            Files.writeString(remembered, "libggml-cpu-x64.so");
        }
        assertEquals(
                lib().resolve("libggml-cpu-x64.so"),
                CpuVariants.best(lib(), home).orElseThrow());
    }

    @Test
    void leavesFoldersWithOtherBackendsToGgml(@TempDir Path dir) throws Exception {
        Files.copy(lib().resolve("libggml-cpu-x64.so"), dir.resolve("libggml-cpu-x64.so"));
        Files.writeString(dir.resolve("libggml-cuda.so"), "not really");
        assertTrue(CpuVariants.best(dir).isEmpty());
    }
}
