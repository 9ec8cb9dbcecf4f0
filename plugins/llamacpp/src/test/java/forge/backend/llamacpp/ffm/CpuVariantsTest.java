package forge.backend.llamacpp.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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

    /**
     * A CPU package copied into {@code root/lib}: libggml-base and two variants, {@code x64} and
     * the one that wins here, so the copies load ({@code RUNPATH $ORIGIN}) and score as the originals.
     */
    private static String copyPackage(Path root, Path home) throws Exception {
        String best = CpuVariants.best(lib(), home).orElseThrow().getFileName().toString();
        // the prebuilt variant of that name, where the winner here is ggml-omp.sh's build of it
        String winner = best.replace(CpuVariants.OPENMP_SUFFIX, ".so");
        Path dir = Files.createDirectories(root.resolve("lib"));
        for (String name : List.of("libggml-base.so", "libggml-cpu-x64.so", winner)) {
            Files.copy(lib().resolve(name), dir.resolve(name));
        }
        return winner;
    }

    private static String openMpName(String variant) {
        return variant.substring(0, variant.length() - ".so".length()) + CpuVariants.OPENMP_SUFFIX;
    }

    @Test
    void prefersTheOpenMpBuildOnATieInTheCacheLayout(@TempDir Path root, @TempDir Path home) throws Exception {
        String winner = copyPackage(root, home);
        Path lib = root.resolve("lib");
        assertEquals(
                winner, CpuVariants.best(lib, home).orElseThrow().getFileName().toString());
        // ggml-omp.sh's output beside lib/: a stand-in that scores exactly as the prebuilt variant
        Path omp =
                Files.createDirectories(root.resolve(CpuVariants.OPENMP_FOLDER)).resolve(openMpName(winner));
        Files.copy(lib.resolve(winner), omp);
        // a new file is a new key: the choice remembered without it is not reused
        assertEquals(omp, CpuVariants.best(lib, home).orElseThrow());
        assertEquals(omp, CpuVariants.best(lib, home).orElseThrow(), "and remembered");
    }

    @Test
    void prefersTheOpenMpBuildOnATieInTheImageLayout(@TempDir Path root, @TempDir Path home) throws Exception {
        String winner = copyPackage(root, home);
        Path lib = root.resolve("lib");
        // beside the prebuilt variants, as the image has it (its name sorts before the prebuilt
        // one's, so here the order alone would pick it; the cache layout above needs the tie rule)
        Path omp = lib.resolve(openMpName(winner));
        Files.copy(lib.resolve(winner), omp);
        assertEquals(omp, CpuVariants.best(lib, home).orElseThrow());
        assertTrue(CpuVariants.isOpenMp(omp));
        assertFalse(CpuVariants.isOpenMp(lib.resolve(winner)));
    }

    @Test
    void fallsBackToThePrebuiltVariantWhenTheOpenMpBuildCannotLoad(@TempDir Path root, @TempDir Path home)
            throws Exception {
        String winner = copyPackage(root, home);
        Path lib = root.resolve("lib");
        Files.writeString(lib.resolve(openMpName(winner)), "not a shared library");
        Path omp = Files.createDirectories(root.resolve(CpuVariants.OPENMP_FOLDER));
        Files.writeString(omp.resolve(openMpName(winner)), "not a shared library either");
        assertEquals(lib.resolve(winner), CpuVariants.best(lib, home).orElseThrow());
    }
}
