package forge.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import forge.api.backend.Availability;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ForgeRuntimeTest {

    private static final List<BackendChoice> FOUND = List.of(
            new BackendChoice(
                    "llama.cpp-cuda",
                    "forge.backend.llamacpp.cuda",
                    "plugins/llamacpp-cuda",
                    10,
                    Availability.unusable("libcuda.so.1 not found: no NVIDIA driver"),
                    false),
            new BackendChoice(
                    "llama.cpp-cpu", "forge.backend.llamacpp", "boot", 0, Availability.usable("CPU: avx2"), true));

    @Test
    void aForcedBackendThatIsNotUsableIsAnErrorNamingWhy() {
        assertEquals(
                "--backend llama.cpp-cuda is not usable: libcuda.so.1 not found: no NVIDIA driver",
                ForgeRuntime.noBackend("llama.cpp-cuda", FOUND));
    }

    @Test
    void anUnknownForcedBackendNamesTheOnesFound() {
        assertEquals(
                "--backend vulkan: no such backend; the backends found are [llama.cpp-cuda, llama.cpp-cpu] (forge plugins lists them)",
                ForgeRuntime.noBackend("vulkan", FOUND));
    }

    @Test
    void withNoneUsableEveryVerdictIsGiven() {
        assertEquals(
                "no usable backend; verdicts: [llama.cpp-cuda: libcuda.so.1 not found: no NVIDIA driver, llama.cpp-cpu: CPU: avx2]",
                ForgeRuntime.noBackend("", FOUND));
    }

    @Test
    void commandLineSettingsGoOnTopOfTheConfiguredOnes() {
        RuntimeConfig c = new RuntimeConfig(Path.of("/h"), List.of(), "", Map.of("a", "1", "b", "2"))
                .withSettings(Map.of("b", "3"));
        assertEquals(Map.of("a", "1", "b", "3"), c.settings());
    }
}
