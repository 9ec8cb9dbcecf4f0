package forge.backend.llamacpp.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import forge.api.BackendException;
import forge.api.backend.Availability;
import forge.api.backend.BackendContext;
import forge.api.backend.BackendProvider;
import forge.backend.llamacpp.LlamaCppProvider;
import forge.backend.llamacpp.natives.LibrarySearch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CudaProviderTest {

    private static final boolean NO_DRIVER =
            LibrarySearch.system(System.getenv()).find("libcuda.so.1").isEmpty();

    @Test
    void outranksTheCpuBackendAndTouchesNothingNativeInItsConstructor() {
        BackendProvider p = new CudaProvider();
        assertEquals("llama.cpp-cuda", p.name());
        assertTrue(p.priority() > new LlamaCppProvider().priority());
    }

    @Test
    void withoutNativesItSaysSoAndWhereItLooked(@TempDir Path home) {
        Path natives = home.resolve("cuda-natives");
        Availability a =
                new CudaProvider().probe(new BackendContext(home, Map.of(CudaProvider.NATIVES, natives.toString())));
        assertFalse(a.isUsable());
        assertTrue(a.detail().contains("CUDA natives not installed: no libggml-cuda.so in " + natives), a.detail());
        BackendException e = assertThrows(
                BackendException.class,
                () -> new CudaProvider()
                        .create(new BackendContext(home, Map.of(CudaProvider.NATIVES, natives.toString()))));
        assertTrue(e.getMessage().contains("not usable: "), e.getMessage());
    }

    @Test
    void onAMachineWithoutADriverItSaysNoNvidiaDriver(@TempDir Path home) {
        assumeTrue(NO_DRIVER, "this machine has an NVIDIA driver");
        Availability a = new CudaProvider().probe(new BackendContext(home, Map.of()));
        assertFalse(a.isUsable());
        assertTrue(a.detail().contains("libcuda.so.1 not found: no NVIDIA driver"), a.detail());
    }

    @Test
    void theNativesFolderComesFromTheFlagThenTheEnvironmentThenTheHome(@TempDir Path home) {
        assertEquals(
                Path.of("/a"),
                CudaProvider.nativesDirectory(
                        new BackendContext(home, Map.of(CudaProvider.NATIVES, "/a")),
                        Map.of(CudaProvider.NATIVES_ENV, "/b")));
        assertEquals(
                Path.of("/b"),
                CudaProvider.nativesDirectory(
                        new BackendContext(home, Map.of()), Map.of(CudaProvider.NATIVES_ENV, "/b")));
        // Tests run from target/classes, not a jar: no natives/lib beside it.
        assertEquals(
                home.resolve("natives/llama-cuda/lib"),
                CudaProvider.nativesDirectory(new BackendContext(home, Map.of()), Map.of()));
    }

    @Test
    void probingBothBackendsLoadsNoLlamaGgmlOrCudaLibrary(@TempDir Path home) throws Exception {
        // This test JVM never creates a backend: after both probes nothing of llama.cpp, ggml or CUDA may be mapped.
        String llamaHome = System.getProperty("forge.llama.home");
        Availability cpu =
                new LlamaCppProvider().probe(new BackendContext(home, Map.of(LlamaCppProvider.LLAMA_HOME, llamaHome)));
        assertTrue(cpu.isUsable(), cpu.detail());
        // The CUDA probe over the CPU natives folder plus a stand-in libggml-cuda.so, so that it gets past the file
        // checks.
        Path natives = Files.createDirectories(home.resolve("natives"));
        try (var files = Files.list(Path.of(llamaHome, "lib"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".so")).toList()) {
                Files.createSymbolicLink(natives.resolve(f.getFileName()), f);
            }
        }
        Files.copy(Path.of(llamaHome, "lib", "libggml-cpu-x64.so"), natives.resolve("libggml-cuda.so"));
        Availability cuda =
                new CudaProvider().probe(new BackendContext(home, Map.of(CudaProvider.NATIVES, natives.toString())));
        if (NO_DRIVER) {
            assertFalse(cuda.isUsable(), cuda.detail());
        }
        String maps = Files.readString(Path.of("/proc/self/maps"));
        for (String lib : new String[] {"libllama", "libggml", "libcuda", "libcudart", "libcublas"}) {
            assertFalse(maps.contains(lib), "a probe mapped " + lib + ":\n" + maps);
        }
    }
}
