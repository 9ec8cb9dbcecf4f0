package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OCI image as a container runtime sees it. Podman and crun cannot start a container on these
 * machines (their rlimit and cgroup set-up is refused), so the image is taken apart and run with
 * the tools a runtime is made of: umoci unpacks the OCI layout into a runtime bundle (root file
 * system + {@code config.json}), and bubblewrap runs the bundle's process in its own user, IPC and
 * UTS namespaces with the bundle's user, environment, working folder and arguments, on a read-only
 * root with {@code /tmp} a tmpfs and a synthetic model bind-mounted at {@code /models}, as a
 * Kubernetes pod would. It serves a chat on loopback.
 */
class ContainerImageTest {

    static final ObjectMapper JSON = OciBundle.JSON;

    @TempDir
    static Path work;

    static OciBundle image;
    static Path bundle;
    static JsonNode config;

    @BeforeAll
    static void unpack() throws Exception {
        image = OciBundle.unpack(
                Path.of(System.getProperty("forge.oci.tarball", "target/forge-oci.tar")),
                System.getProperty("forge.oci.name", "forgelm:latest"),
                work);
        bundle = image.bundle();
        config = image.config();
    }

    @Test
    void theConfigHasTheUserEntrypointPortVolumesAndLabels() throws Exception {
        JsonNode c = config.get("config");
        assertEquals("10001:10001", c.get("User").asText(), "not root");
        assertEquals(List.of("/usr/local/bin/forge-serve"), JSON.convertValue(c.get("Entrypoint"), List.class));
        assertTrue(c.get("ExposedPorts").has("8080/tcp"), c.toString());
        List<String> volumes = new ArrayList<>();
        c.get("Volumes").fieldNames().forEachRemaining(volumes::add);
        assertEquals(
                List.of("/models", "/var/cache/forge"),
                volumes.stream().sorted().toList());
        Map<?, ?> labels = JSON.convertValue(c.get("Labels"), Map.class);
        assertTrue(
                String.valueOf(labels.get("org.opencontainers.image.version")).matches("\\d+\\.\\d+\\.\\d+.*"),
                labels.toString());
        assertEquals("v0.5.0", labels.get("dev.forgelm.llama-cpp.release"), labels.toString());
        assertTrue(String.valueOf(labels.get("dev.forgelm.base.packages")).contains("libstdc++6="), labels.toString());
        List<String> env = JSON.convertValue(c.get("Env"), new TypeReference<List<String>>() {});
        assertTrue(
                env.contains("FORGE_MODELS_DIR=/models") && env.contains("FORGE_PROMPT_CACHE_DIR=/var/cache/forge"),
                env.toString());
        assertEquals("amd64", config.get("architecture").asText());
        assertEquals("linux", config.get("os").asText());

        // umoci's runtime bundle carries the same user and process.
        JsonNode runtime = JSON.readTree(bundle.resolve("config.json").toFile());
        assertEquals(10001, runtime.get("process").get("user").get("uid").asInt());
        assertEquals(
                "/usr/local/bin/forge-serve",
                runtime.get("process").get("args").get(0).asText());
        // The base is what the natives need and little else: no package manager, no shell beyond /bin/sh.
        Path rootfs = bundle.resolve("rootfs");
        for (String f : List.of(
                "usr/lib/x86_64-linux-gnu/libstdc++.so.6",
                "lib/x86_64-linux-gnu/libgcc_s.so.1",
                "lib64/ld-linux-x86-64.so.2",
                "opt/forge/bin/java",
                "opt/forge/natives/llama/lib/libllama.v0.5.0.so",
                "etc/passwd")) {
            assertTrue(Files.exists(rootfs.resolve(f)), f);
        }
        assertFalse(Files.exists(rootfs.resolve("usr/bin/apt-get")));
        assertTrue(Files.readString(rootfs.resolve("etc/passwd")).contains("forge:x:10001:10001:"));
    }

    @Test
    void theCpuImageStaysSmall() throws Exception {
        long bytes = Files.size(Path.of(System.getProperty("forge.oci.tarball", "target/forge-oci.tar")));
        // The jlink image (~60 MB compressed with llama.cpp's CPU libraries) and a base of ~3 MB: 120 MiB is a loud
        // ceiling.
        assertTrue(bytes < 120L * 1024 * 1024, "the CPU image grew to " + bytes / (1024 * 1024) + " MiB");
    }

    @Test
    void itsEntrypointServesAChatUnderBubblewrapWithTheImagesUserAndEnvironment() throws Exception {
        Path models = Files.createDirectories(work.resolve("models"));
        Path cache = Files.createDirectories(work.resolve("cache"));
        Path home = Files.createDirectories(work.resolve("host-home"));
        ImageServer.Ran synth = ImageServer.command(
                home, "model", "synth", "-o", models.resolve("tiny.gguf").toString());
        assertEquals(0, synth.exitCode(), synth.output());

        JsonNode process = image.process();
        int port = HostTools.freePort();
        // The image's environment, then what a Deployment sets.
        List<String> cmd = image.bwrap(
                List.of("--ro-bind", models.toString(), "/models", "--bind", cache.toString(), "/var/cache/forge"),
                List.of(
                        "FORGE_HOST=127.0.0.1",
                        "FORGE_PORT=" + port,
                        "FORGE_MODEL=/models/tiny.gguf",
                        "FORGE_SERVE_ARGS=-c 1024 -np 1 -t 2 --alias tiny"));
        cmd.add("--");
        process.get("args").forEach(a -> cmd.add(a.asText()));
        Path log = work.resolve("container.log");
        Process container = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        running = container;
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + port;
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (true) {
                try {
                    if (http.send(
                                            HttpRequest.newBuilder(URI.create(base + "/health"))
                                                    .build(),
                                            HttpResponse.BodyHandlers.discarding())
                                    .statusCode()
                            == 200) {
                        break;
                    }
                } catch (IOException notYet) {
                    // not listening yet
                }
                assertTrue(
                        container.isAlive() && System.nanoTime() < deadline,
                        "the container did not come up:\n" + Files.readString(log));
                Thread.sleep(200);
            }
            HttpResponse<String> chat = http.send(
                    HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("""
                            {"model": "tiny", "max_tokens": 8, "messages": [{"role": "user", "content": "Hello from a container"}]}"""))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, chat.statusCode(), chat.body());
            JsonNode answer = JSON.readTree(chat.body());
            assertEquals(
                    "assistant",
                    answer.get("choices").get(0).get("message").get("role").asText());
            assertTrue(answer.get("usage").get("completion_tokens").asInt() > 0, chat.body());
            // The gateway's gauges are there too.
            String metrics = http.send(
                            HttpRequest.newBuilder(URI.create(base + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            assertTrue(metrics.contains("vllm:num_requests_waiting{model_name=\"tiny\"} 0.0"), metrics);

            // The server's JVM runs as the image's user: uid 10001 in its user namespace (root outside, who started
            // it).
            ProcessHandle java = container
                    .toHandle()
                    .descendants()
                    .filter(h -> h.info().command().orElse("").endsWith("/bin/java"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no java under bwrap"));
            String uidMap = Files.readString(Path.of("/proc", Long.toString(java.pid()), "uid_map"))
                    .trim();
            assertTrue(uidMap.startsWith("10001 "), uidMap);
            // Stop as Kubernetes does: SIGTERM to the server, which drains and exits 0.
            java.destroy();
            assertTrue(
                    container.waitFor(60, TimeUnit.SECONDS), "the container did not stop:\n" + Files.readString(log));
            String out = Files.readString(log);
            assertEquals(0, container.exitValue(), out);
            assertFalse(out.contains("Read-only file system"), out);
        } finally {
            container.destroyForcibly();
        }
    }

    static Process running;

    @AfterAll
    static void stop() throws Exception {
        if (running != null && running.isAlive()) {
            running.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            running.destroyForcibly();
            running.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
