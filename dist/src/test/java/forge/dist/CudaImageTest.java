package forge.dist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CUDA image ({@code mvn -Pcuda,cuda-natives package}), built the way that profile builds it
 * (the same {@code build-image-oci.sh}, the CPU image plus the CUDA plugin and its natives) but with
 * stand-in natives: the real ones are 136 MiB that CI does not fetch, and without an NVIDIA driver
 * the plugin never loads them. What is checked is what the profile's build decides: the tag, the
 * accelerator label, the plugin and its natives where the plugin looks for them inside the image,
 * and the image's {@code forge} seeing the plugin with its natives found, saying it lacks only the
 * driver and the CUDA runtime (which a GPU node mounts), and choosing the CPU.
 */
class CudaImageTest {

    static final byte[] STAND_IN = "stand-in for ggml's CUDA backend (CudaImageTest)".getBytes(StandardCharsets.UTF_8);

    @TempDir
    static Path work;

    static OciBundle image;

    @BeforeAll
    static void build() throws Exception {
        Path natives = Files.createDirectories(work.resolve("cuda-natives"));
        Files.write(natives.resolve("libggml-cuda.so"), STAND_IN);
        Path tarball = work.resolve("forge-oci-cuda.tar");
        String ref = System.getProperty("forge.oci.name", "forgelm:latest") + "-cuda";
        Map<String, String> env = new HashMap<>();
        env.put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        env.put("JIB_CLASSPATH", property("forge.oci.classpath"));
        env.put("IMAGE", property("forge.image.dir"));
        env.put("OCI_TARBALL", tarball.toString());
        env.put("OCI_NAME", ref);
        env.put("DEB_CACHE", property("forge.oci.debs"));
        env.put("VERSION", property("forge.version"));
        env.put("LLAMA_RELEASE", "v0.5.0");
        env.put("LLAMA_NATIVES", "@node-llama-cpp/linux-x64-cuda@" + property("forge.llama.natives.version"));
        env.put("CUDA_PLUGIN_DIR", property("forge.cuda.plugin.dir"));
        env.put("CUDA_LIB", natives.toString());
        ProcessBuilder pb = new ProcessBuilder(
                        "bash", Path.of("build-image-oci.sh").toAbsolutePath().toString())
                .redirectErrorStream(true)
                .redirectOutput(work.resolve("build.log").toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), "build-image-oci.sh did not finish");
        assertEquals(0, p.exitValue(), Files.readString(work.resolve("build.log")));
        image = OciBundle.unpack(tarball, ref, work);
    }

    static String property(String name) {
        String value = System.getProperty(name);
        assertTrue(value != null && !value.isBlank(), name + " is not set (run through Maven)");
        return value;
    }

    @Test
    void itIsTheCpuImageWithTheCudaPluginAndItsNativesUnderTheCudaTag() throws Exception {
        JsonNode c = image.config().get("config");
        Map<?, ?> labels = OciBundle.JSON.convertValue(c.get("Labels"), Map.class);
        assertEquals("cuda-13", labels.get("dev.forgelm.accelerator"), labels.toString());
        assertTrue(
                String.valueOf(labels.get("dev.forgelm.llama-cpp.natives"))
                        .startsWith("@node-llama-cpp/linux-x64-cuda@"),
                labels.toString());
        assertEquals("10001:10001", c.get("User").asText(), "not root");
        assertEquals(
                List.of("/usr/local/bin/forge-serve"), OciBundle.JSON.convertValue(c.get("Entrypoint"), List.class));

        Path plugin = image.rootfs().resolve("opt/forge/plugins/llamacpp-cuda");
        try (Stream<Path> files = Files.list(plugin)) {
            assertEquals(
                    1,
                    files.filter(f -> f.getFileName().toString().startsWith("forge-backend-llamacpp-cuda-"))
                            .count(),
                    "the plugin's jar in " + plugin);
        }
        assertArrayEquals(STAND_IN, Files.readAllBytes(plugin.resolve("natives/lib/libggml-cuda.so")));
        // Everything else is the CPU image's: its natives, its runtime.
        assertTrue(Files.exists(image.rootfs().resolve("opt/forge/natives/llama/lib/libllama.v0.5.0.so")));
        assertTrue(Files.isExecutable(image.rootfs().resolve("opt/forge/bin/java")));
    }

    @Test
    void theImagesForgeFindsThePluginsNativesAndLacksOnlyTheDriverAndRuntime() throws Exception {
        List<String> cmd = new ArrayList<>(image.bwrap(List.of(), List.of()));
        cmd.addAll(List.of("--", "/opt/forge/bin/forge", "plugins"));
        String out = OciBundle.run(cmd, 120, work);
        String cuda = out.lines()
                .filter(l -> l.contains("llama.cpp-cuda") && l.contains("priority 10 "))
                .findFirst()
                .orElseThrow(() -> new AssertionError(out));
        assertTrue(cuda.contains("unusable"), cuda);
        assertFalse(cuda.contains("CUDA natives not installed"), "the natives are not where the plugin looks: " + cuda);
        assertTrue(cuda.contains("libcuda.so.1 not found: no NVIDIA driver"), cuda);
        assertTrue(cuda.contains("the CUDA 13 runtime is needed"), cuda);
        assertTrue(out.lines().anyMatch(l -> l.strip().startsWith("* llama.cpp-cpu")), out);
    }
}
