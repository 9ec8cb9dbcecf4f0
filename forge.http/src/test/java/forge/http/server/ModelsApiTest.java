package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.BackendException;
import forge.api.backend.Backend;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
import forge.api.template.ChatTemplateProvider;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import forge.runtime.ForgeRuntime;
import forge.runtime.RuntimeConfig;
import forge.runtime.catalog.CatalogConfig;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import forge.runtime.catalog.ModelState;
import forge.runtime.catalog.TemplateSelector;
import forge.runtime.plugin.Discovered;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /models}' status while a model loads (the progress, who waits) and after its load failed. */
class ModelsApiTest {

    /** Reports 40% and waits for the test, then fails: a load the test can watch. */
    static final class HeldBackend implements Backend {
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public String name() {
            return "held";
        }

        @Override
        public LoadedModel load(ModelLoadParams params, LoadProgress progress) {
            progress.update(0.4f);
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new BackendException("unknown model architecture: 'x'");
        }

        @Override
        public void close() {}
    }

    @Test
    void theStatusShowsTheProgressAndTheWaitersThenTheReason(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("m.gguf");
        SyntheticModels.write(SynthSpec.tiny("qwen"), file);
        List<Discovered<ChatTemplateProvider>> templates = ForgeRuntime.inspect(
                        new RuntimeConfig(dir, List.of(), "", Map.of()))
                .plugins()
                .templates();
        HeldBackend backend = new HeldBackend();
        try (ModelCatalog catalog = new ModelCatalog(
                CatalogConfig.builder(backend, new TemplateSelector(templates)).build())) {
            ModelEntry entry = catalog.add(file, List.of());
            assertEquals("unloaded", ModelsApi.status(entry).get("value").asText());
            Thread waiter = Thread.ofVirtual().start(() -> {
                try {
                    catalog.serve(entry);
                } catch (RuntimeException expected) {
                    // the load fails
                }
            });
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!(entry.state() instanceof ModelState.Loading l && l.progress() > 0)) {
                assertTrue(System.nanoTime() < deadline, entry.state().toString());
                Thread.sleep(10);
            }
            JsonNode listed = new ModelsApi(catalog).list().get("data").get(0);
            assertEquals("m", listed.get("id").asText());
            assertEquals("model", listed.get("object").asText());
            assertEquals("loading", listed.get("status").get("value").asText());
            assertEquals(0.4, listed.get("status").get("progress").asDouble(), 1e-6);
            assertEquals(1, listed.get("status").get("waiting").asInt());
            assertTrue(listed.get("available").asBoolean());
            assertEquals("file", listed.get("source").asText());
            backend.release.countDown();
            waiter.join(10_000);
            JsonNode failed = new ModelsApi(catalog).list().get("data").get(0);
            assertEquals("failed", failed.get("status").get("value").asText());
            assertTrue(failed.get("status").get("failed").asBoolean());
            assertFalse(failed.get("available").asBoolean());
            assertEquals(
                    "the model failed to load: unknown model architecture: 'x'",
                    failed.get("reason").asText());
        }
    }
}
