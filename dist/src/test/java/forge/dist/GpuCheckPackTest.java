package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench/gpu-check.sh pack}: the payload that travels to the lent GPU machine (64 MiB of
 * files at most) holds what its run needs: the image with the CUDA plugin, the load generator,
 * and the llama.cpp source to build ggml's CUDA backend and llama-bench from.
 */
class GpuCheckPackTest {

    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    @Test
    void thePayloadFitsIn64MiBAndHoldsWhatTheRunNeeds(@TempDir Path dir) throws Exception {
        assumeTrue(
                Files.isRegularFile(ROOT.resolve("bench/target/forge-bench.jar")),
                "the load generator is not built (a build of dist alone); the whole build packs it");
        Path log = dir.resolve("pack.log");
        Process p = new ProcessBuilder(
                        "bash",
                        ROOT.resolve("bench/gpu-check.sh").toString(),
                        "pack",
                        dir.resolve("out").toString())
                .directory(ROOT.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "pack did not finish");
        assertEquals(0, p.exitValue(), Files.readString(log));
        Path payload = dir.resolve("out/gpu-check.tar.gz");
        long size = Files.size(payload);
        assertTrue(size <= 64L * 1024 * 1024, "the payload is " + size + " bytes");
        Process list = new ProcessBuilder("tar", "-tzf", payload.toString())
                .redirectErrorStream(true)
                .start();
        String names = new String(list.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, list.waitFor());
        for (String needed : List.of(
                "payload/image/bin/forge",
                "payload/image/bin/java",
                "payload/bench/forge-bench.jar",
                "payload/llama.cpp/CMakeLists.txt",
                "payload/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu",
                "payload/llama.cpp/tools/llama-bench/llama-bench.cpp",
                "payload/llama.cpp/tools/quantize/quantize.cpp",
                "payload/llama.cpp/models/ggml-vocab-qwen2.gguf")) {
            assertTrue(
                    names.lines().anyMatch(n -> n.equals(needed) || n.equals("./" + needed)),
                    needed + " is not in the payload");
        }
        assertTrue(
                names.lines()
                        .anyMatch(n ->
                                n.matches("payload/image/plugins/llamacpp-cuda/forge-backend-llamacpp-cuda-.*\\.jar")),
                "the CUDA plugin jar is not in the payload's image");
    }
}
