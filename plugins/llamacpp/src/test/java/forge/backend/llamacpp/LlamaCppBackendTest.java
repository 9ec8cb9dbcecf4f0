package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.BackendException;
import forge.api.backend.LoadProgress;
import forge.api.backend.ModelLoadParams;
import forge.backend.llamacpp.ffm.Llama;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad files give a clear {@link BackendException}, never a crash. */
class LlamaCppBackendTest {

    private static BackendException loadFails(Path file, boolean mmap) {
        return assertThrows(
                BackendException.class,
                () -> LlamaHome.backend().load(new ModelLoadParams(file, 0, mmap, false), LoadProgress.NONE));
    }

    @Test
    void aMissingFile(@TempDir Path dir) {
        Path file = dir.resolve("nope.gguf");
        BackendException e = loadFails(file, true);
        assertEquals("model file not found: " + file, e.getMessage());
    }

    @Test
    void aFolder(@TempDir Path dir) {
        assertTrue(loadFails(dir, true).getMessage().startsWith("not a regular file"));
    }

    @Test
    void aFileThatIsNotGguf(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("model.gguf"), "{\"this is\": \"json, not gguf\"}");
        BackendException e = loadFails(file, true);
        assertTrue(e.getMessage().startsWith("not a GGUF file (it starts with 0x7b227468"), e.getMessage());
    }

    @Test
    void anEmptyFile(@TempDir Path dir) throws IOException {
        Path file = Files.createFile(dir.resolve("empty.gguf"));
        assertTrue(loadFails(file, true).getMessage().startsWith("not a GGUF file (only 0 bytes)"));
    }

    @Test
    void aTruncatedVocabulary(@TempDir Path dir) throws IOException {
        Path half = truncate(LlamaHome.vocab("qwen2"), dir.resolve("half.gguf"), 2);
        for (boolean mmap : new boolean[] {true, false}) {
            BackendException e = assertThrows(
                    BackendException.class,
                    () -> LlamaHome.backend().load(new ModelLoadParams(half, 0, mmap, true), LoadProgress.NONE));
            assertTrue(e.getMessage().startsWith("llama.cpp could not load " + half), e.getMessage());
        }
    }

    @Test
    void aTruncatedModelWithWeights(@TempDir Path dir) throws IOException {
        Path model = LlamaHome.tinyModel("qwen");
        for (long keep : new long[] {Files.size(model) / 2, Files.size(model) - 1}) {
            Path cut = copyPrefix(model, dir.resolve("cut-" + keep + ".gguf"), keep);
            for (boolean mmap : new boolean[] {true, false}) {
                BackendException e = loadFails(cut, mmap);
                assertTrue(e.getMessage().startsWith("llama.cpp could not load " + cut), e.getMessage());
                assertTrue(e.getMessage().contains("not within the file bounds"), e.getMessage());
            }
        }
    }

    @Test
    void quantizerRejectsAnUnknownTypeListingTheValidOnes(@TempDir Path dir) {
        BackendException e = assertThrows(
                BackendException.class,
                () -> LlamaHome.backend()
                        .quantizer()
                        .orElseThrow()
                        .quantize(LlamaHome.tinyModel("qwen"), dir.resolve("out.gguf"), "Q9_X", 1));
        assertTrue(
                e.getMessage().contains("Q9_X")
                        && e.getMessage().contains("Q4_K_M")
                        && e.getMessage().contains("Q8_0"),
                e.getMessage());
    }

    @Test
    void quantizerRejectsAFileThatIsNotGguf(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("in.gguf"), "not a model at all");
        assertThrows(
                BackendException.class,
                () -> LlamaHome.backend().quantizer().orElseThrow().quantize(file, dir.resolve("out.gguf"), "Q8_0", 1));
    }

    static Path truncate(Path from, Path to, int divisor) throws IOException {
        return copyPrefix(from, to, Files.size(from) / divisor);
    }

    static Path copyPrefix(Path from, Path to, long bytes) throws IOException {
        try (InputStream in = Files.newInputStream(from);
                OutputStream out = Files.newOutputStream(to)) {
            out.write(in.readNBytes((int) bytes));
        }
        return to;
    }

    @Test
    void theCpuBackendAcceptsAndIgnoresTheGpuFlagsAndListsItsDevice() {
        var settings = new java.util.HashMap<>(LlamaHome.context().settings());
        settings.put(forge.api.backend.BackendContext.GPU_LAYERS, "99");
        settings.put(forge.api.backend.BackendContext.SPLIT_MODE, "row");
        var backend = new LlamaCppProvider()
                .create(new forge.api.backend.BackendContext(LlamaHome.context().home(), settings));
        assertTrue(
                backend.devices().stream().anyMatch(d -> d.type().equals("cpu")),
                backend.devices().toString());
        assertTrue(
                backend.devices().stream().noneMatch(forge.api.backend.Device::isGpu),
                backend.devices().toString());
        try (var model = backend.load(ModelLoadParams.of(LlamaHome.tinyModel("qwen")), LoadProgress.NONE)) {
            assertEquals(java.util.Optional.empty(), model.offload());
            assertTrue(model.info().layers() > 0);
        }
    }

    @Test
    void aModelLoadMakesTheFirstRequestsHandlesWithoutBeingCalled() throws InterruptedException {
        try (var model = LlamaHome.loadTiny("qwen")) {
            assertTrue(model.info().layers() > 0);
            // No context, no decode, no sampler: only the load ran, and its binding thread.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            List<String> missing = LlamaCppBackend.AFTER_LOAD;
            while (!missing.isEmpty() && System.nanoTime() < deadline) {
                missing = missing.stream().filter(f -> Llama.made(f) != 1).toList();
                Thread.sleep(10);
            }
            assertEquals(List.of(), missing, "handles not made ahead");
        }
    }

    @Test
    void aMalformedGpuFlagFailsTheCreateNamingIt() {
        var settings = new java.util.HashMap<>(LlamaHome.context().settings());
        settings.put(forge.api.backend.BackendContext.GPU_LAYERS, "lots");
        BackendException e = assertThrows(
                BackendException.class,
                () -> new LlamaCppProvider()
                        .create(new forge.api.backend.BackendContext(
                                LlamaHome.context().home(), settings)));
        assertTrue(e.getMessage().startsWith("-ngl/--gpu-layers"), e.getMessage());
    }
}
