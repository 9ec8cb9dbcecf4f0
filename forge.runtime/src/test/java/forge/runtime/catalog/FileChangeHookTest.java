package forge.runtime.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.Backend;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import forge.runtime.engine.EngineConfig;
import forge.runtime.engine.FakeModel;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog's file watch hook with a model a request still holds when its file changes in place:
 * refused from the change on, freed only when the request lets go (not when the file settles), then
 * reloaded. No natives: the backend serves {@link FakeModel}s and counts loads and closes.
 */
class FileChangeHookTest {

    @TempDir
    Path dir;

    final AtomicInteger loads = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();
    final Backend backend = new Backend() {
        @Override
        public String name() {
            return "fake";
        }

        @Override
        public LoadedModel load(ModelLoadParams params, LoadProgress progress) {
            assertTrue(params.useMmap(), "weights are mapped by default");
            loads.incrementAndGet();
            FakeModel model = FakeModel.plain();
            return new LoadedModel() {
                @Override
                public forge.api.backend.ModelInfo info() {
                    return model.info();
                }

                @Override
                public forge.api.backend.Vocabulary vocabulary() {
                    return model.vocabulary();
                }

                @Override
                public forge.api.backend.InferenceContext newContext(forge.api.backend.ContextParams p) {
                    return model.newContext(p);
                }

                @Override
                public void close() {
                    closes.incrementAndGet();
                }
            };
        }

        @Override
        public void close() {}
    };
    final ModelCatalog catalog = new ModelCatalog(ModelCatalogTest.config(backend)
            .engineConfig(EngineConfig.defaults())
            .build());

    @AfterEach
    void close() {
        catalog.close();
    }

    private static void await(String what, java.util.function.BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 30 s: " + what);
            Thread.sleep(10);
        }
    }

    private static Predicate<ModelState> reloading(boolean held, boolean settled) {
        return s -> s instanceof ModelState.Reloading r && (r.retiring() != null) == held && r.settled() == settled;
    }

    @Test
    void aHeldModelWhoseFileChangesIsRefusedThenFreedWhenReleasedThenReloaded() throws Exception {
        Path file = dir.resolve("m.gguf");
        SyntheticModels.write(SynthSpec.tiny("qwen"), file);
        ModelEntry entry = catalog.add(file, List.of());
        ModelLoader.Lease held = catalog.lease(entry);
        assertEquals(1, loads.get());
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
            c.truncate(Files.size(file) - 1); // in place: the same inode, another size
        }
        await("reloading, still held", () -> reloading(true, false).test(entry.state()));
        ModelUnavailableException refused = assertThrows(ModelUnavailableException.class, () -> catalog.lease(entry));
        assertEquals(ModelUnavailableException.Kind.LOADING, refused.kind(), "503 with Retry-After");
        assertTrue(
                refused.getMessage().contains("is reloading: " + file + " was changed in place"), refused.getMessage());
        // The file is quiet now: it settles, but the model is not freed while the request holds it.
        await("settled, still held", () -> reloading(true, true).test(entry.state()));
        assertEquals(0, closes.get());
        assertEquals(1, loads.get());
        held.close(); // the request ends: the old model is freed, and the settled file reloads
        await("reloaded", () -> entry.state() instanceof ModelState.Loaded);
        assertEquals(1, closes.get());
        assertEquals(2, loads.get());
        catalog.lease(entry).close();
    }
}
