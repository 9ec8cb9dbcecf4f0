package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CUDA plugin as a user without an NVIDIA GPU (this machine, CI) installs it: its jar in a
 * plugins folder of the image, without its 160 MB natives (CI does not fetch them). It must say
 * why it is not usable, the CPU backend must serve, and forcing it must fail naming why.
 */
class CudaPluginTest {

    @TempDir
    static Path work;

    static Path plugins;

    /** plugins/llamacpp-cuda/ with the plugin's jar, as the CUDA tarball lays it out (minus natives/). */
    @BeforeAll
    static void installThePluginJar() throws Exception {
        Path built = Path.of(System.getProperty("forge.cuda.plugin.dir", "target/cuda-plugin"));
        plugins = Files.createDirectories(work.resolve("plugins"));
        Path folder = Files.createDirectories(plugins.resolve("llamacpp-cuda"));
        try (Stream<Path> jars = Files.list(built)) {
            for (Path jar : jars.filter(j -> j.getFileName().toString().startsWith("forge-backend-llamacpp-cuda-"))
                    .toList()) {
                Files.copy(jar, folder.resolve(jar.getFileName()));
            }
        }
        try (Stream<Path> copied = Files.list(folder)) {
            assertEquals(1, copied.count(), "the plugin jar in " + built);
        }
    }

    @Test
    void forgePluginsListsTheCudaBackendAsUnusableWithItsReasonsAndChoosesTheCpu() throws Exception {
        Path home = Files.createDirectories(work.resolve("home-plugins"));
        ImageServer.Ran r = ImageServer.command(home, "plugins", "--plugins-dir", plugins.toString());
        String cuda = cudaRow(r);
        assertTrue(cuda.contains("unusable"), cuda);
        assertTrue(
                cuda.contains("CUDA natives not installed: no libggml-cuda.so in "
                        + plugins.resolve("llamacpp-cuda/natives/lib")),
                cuda);
        if (!Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libcuda.so.1"))) {
            assertTrue(cuda.contains("libcuda.so.1 not found: no NVIDIA driver"), cuda);
        }
        assertTrue(r.output().lines().anyMatch(l -> l.strip().startsWith("* llama.cpp-cpu")), r.output());
        assertTrue(r.output().contains("llamacpp-cuda"), "the plugin source is listed: " + r.output());
    }

    @Test
    void theCpuBackendServesAndPropsShowsTheCudaVerdict() throws Exception {
        try (ImageServer server = ImageServer.start(
                Files.createDirectories(work.resolve("serve")), "--plugins-dir", plugins.toString())) {
            HttpResponse<String> r = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(server.base + "/props"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            JsonNode backend = new ObjectMapper().readTree(r.body()).get("backend");
            assertEquals("llama.cpp-cpu", backend.get("name").asText(), backend.toString());
            JsonNode cuda = null;
            for (JsonNode c : backend.get("candidates")) {
                if (c.get("name").asText().equals("llama.cpp-cuda")) {
                    cuda = c;
                }
            }
            assertTrue(
                    cuda != null
                            && !cuda.get("usable").asBoolean()
                            && !cuda.get("chosen").asBoolean(),
                    backend.toString());
            assertTrue(cuda.get("detail").asText().contains("CUDA natives not installed"), cuda.toString());
        }
    }

    @Test
    void forcingTheCudaBackendIsAStartUpErrorNamingWhy() throws Exception {
        Path home = Files.createDirectories(work.resolve("home-forced"));
        Path model = home.resolve("m.gguf");
        assertEquals(
                0,
                ImageServer.command(home, "model", "synth", "-o", model.toString())
                        .exitCode());
        ImageServer.Ran r = ImageServer.command(
                home,
                "serve",
                "-m",
                model.toString(),
                "--port",
                "0",
                "--plugins-dir",
                plugins.toString(),
                "--backend",
                "llama.cpp-cuda");
        assertNotEquals(0, r.exitCode(), r.output());
        assertTrue(
                r.output().contains("--backend llama.cpp-cuda is not usable: CUDA natives not installed"), r.output());
    }

    @Test
    void pastTheFileChecksTheDriverIsAskedInAChildJvmOfTheImage() throws Exception {
        // Stand-ins that pass every file check: the image's CPU natives plus a libggml-cuda.so, a
        // "driver" that is an ELF library without cuInit, runtime files by name. The image's own
        // Java then runs the plugin's device probe, whose answer becomes the verdict.
        Path home = Files.createDirectories(work.resolve("home-driver"));
        Path natives = Files.createDirectories(work.resolve("stand-in-natives"));
        Path cpu = Path.of(System.getProperty("forge.image.dir", "target/forge"), "natives", "llama", "lib");
        try (Stream<Path> libs = Files.list(cpu)) {
            for (Path lib : libs.filter(l -> l.toString().endsWith(".so")).toList()) {
                Files.copy(lib, natives.resolve(lib.getFileName()));
            }
        }
        Files.copy(cpu.resolve("libggml-cpu-x64.so"), natives.resolve("libggml-cuda.so"));
        Path driver = Files.createDirectories(work.resolve("stand-in-driver"));
        Files.copy(cpu.resolve("libggml-base.so"), driver.resolve("libcuda.so.1"));
        for (String runtime : new String[] {"libcudart.so.13", "libcublasLt.so.13", "libcublas.so.13"}) {
            Files.writeString(driver.resolve(runtime), "");
        }
        ImageServer.Ran r = ImageServer.command(
                home,
                "plugins",
                "--plugins-dir",
                plugins.toString(),
                "--cuda-natives-dir",
                natives.toString(),
                "--cuda-lib-dir",
                driver.toString());
        String cuda = cudaRow(r);
        assertTrue(cuda.contains("unusable: no usable CUDA device: ") && cuda.contains("libcuda has no cuInit"), cuda);
    }

    /**
     * The CUDA backend's row of the Backends table that {@code forge plugins} printed, having succeeded
     * (the log has a line of its own before it).
     */
    private static String cudaRow(ImageServer.Ran r) {
        assertEquals(0, r.exitCode(), r.output());
        return r.output()
                .lines()
                .filter(l -> l.contains("llama.cpp-cuda") && l.contains("priority 10 "))
                .findFirst()
                .orElseThrow(() -> new AssertionError(r.output()));
    }
}
