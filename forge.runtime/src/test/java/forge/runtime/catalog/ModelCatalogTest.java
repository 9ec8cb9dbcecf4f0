package forge.runtime.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.BackendException;
import forge.api.backend.Backend;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import forge.lib.gguf.GgufValue;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import forge.runtime.plugin.Discovered;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The catalog's registration and load machinery, with a backend whose loads the test holds and fails. */
class ModelCatalogTest {

    @TempDir
    Path dir;

    /** A backend whose load reports half, waits for the test, then fails: no natives involved. */
    static final class HeldBackend implements Backend {
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger loads = new AtomicInteger();
        final List<Thread> threads = new ArrayList<>();
        volatile ModelLoadParams lastParams;

        @Override
        public String name() {
            return "held";
        }

        @Override
        public Optional<String> refuses(ModelMetadata metadata) {
            return metadata.architecture()
                    .filter("frobnitz"::equals)
                    .map(a -> "architecture " + a + " is not supported");
        }

        @Override
        public LoadedModel load(ModelLoadParams params, LoadProgress progress) {
            loads.incrementAndGet();
            lastParams = params;
            synchronized (threads) {
                threads.add(Thread.currentThread());
            }
            progress.update(0.5f);
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new BackendException(params.path() + ": tensor 'output.weight' data is not within the file bounds");
        }

        @Override
        public void close() {}
    }

    /** One template, "plain", that parses unless the model's own template says "{% broken". */
    static final class PlainTemplates implements ChatTemplateProvider {
        @Override
        public String family() {
            return "plain";
        }

        @Override
        public List<TemplateVariant> variants() {
            return List.of(new TemplateVariant("generic", "plain text"));
        }

        @Override
        public ChatTemplate create(String variant, TemplateContext context) {
            boolean broken = context.model()
                    .metadata()
                    .chatTemplate()
                    .filter(t -> t.contains("{% broken"))
                    .isPresent();
            return new ChatTemplate() {
                @Override
                public String name() {
                    return "generic";
                }

                @Override
                public String render(ChatPrompt prompt) {
                    return "";
                }

                @Override
                public Optional<String> unusable() {
                    return broken
                            ? Optional.of("the model's chat template does not parse: line 1: broken")
                            : Optional.empty();
                }
            };
        }
    }

    final HeldBackend backend = new HeldBackend();
    ModelCatalog catalog = new ModelCatalog(config(backend).build());

    /** The configuration of a catalog of {@code backend}'s models rendered by {@link PlainTemplates}. */
    static CatalogConfig.Builder config(Backend backend) {
        return CatalogConfig.builder(
                backend,
                new TemplateSelector(
                        List.of(new Discovered<ChatTemplateProvider>(new PlainTemplates(), "test", "test"))));
    }

    @AfterEach
    void close() {
        backend.release.countDown();
        catalog.close();
    }

    private Path model(String name, SynthSpec spec) {
        Path file = dir.resolve(name + ".gguf");
        SyntheticModels.write(spec, file);
        return file;
    }

    @Test
    void concurrentRequestsWaitForOneLoadOnTheLoaderThreadAndItsFailureIsRemembered() throws Exception {
        Path file = model("m", SynthSpec.tiny("qwen"));
        ModelEntry entry = catalog.add(file, List.of());
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                calls.add(pool.submit(() -> catalog.lease(entry)));
            }
            // reported while it loads: the progress, and who waits
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!(entry.state() instanceof ModelState.Loading l && l.waiting() == 3 && l.progress() == 0.5)) {
                assertTrue(System.nanoTime() < deadline, "state: " + entry.state());
                Thread.sleep(10);
            }
            backend.release.countDown();
            for (Future<?> c : calls) {
                var e = assertThrows(java.util.concurrent.ExecutionException.class, c::get);
                var cause = (ModelUnavailableException) e.getCause();
                assertEquals(ModelUnavailableException.Kind.FAILED, cause.kind());
                assertTrue(cause.getMessage().startsWith("the model failed to load: "), cause.getMessage());
            }
        }
        assertEquals(1, backend.loads.get(), "one load for three requests");
        assertFalse(backend.threads.getFirst().isVirtual(), "weights load on a platform thread");
        assertEquals("forge-model-loader", backend.threads.getFirst().getName());
        // remembered: no load per request while the file is the same
        assertThrows(ModelUnavailableException.class, () -> catalog.serve(entry));
        assertEquals(1, backend.loads.get());
        assertFalse(entry.available());
        assertTrue(entry.reason().orElseThrow().contains("not within the file bounds"));
        // the file changed: tried again
        Files.setLastModifiedTime(
                file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 5_000));
        assertThrows(ModelUnavailableException.class, () -> catalog.serve(entry));
        assertEquals(2, backend.loads.get());
    }

    @Test
    void aRequestWaitsBoundedAndIsToldTheProgress() throws Exception {
        catalog.close();
        catalog = new ModelCatalog(config(backend)
                .lifecycle(new ModelLoader.Lifecycle(KeepAlive.FOREVER, UnloadPolicy.UNLIMITED, Duration.ofMillis(200)))
                .build());
        ModelEntry entry = catalog.add(model("slow", SynthSpec.tiny("qwen")), List.of());
        var e = assertThrows(ModelUnavailableException.class, () -> catalog.serve(entry));
        assertEquals(ModelUnavailableException.Kind.LOADING, e.kind());
        assertTrue(
                e.getMessage().startsWith("the model 'slow' is still loading (50% read, 1 request(s) waiting)"),
                e.getMessage());
        assertEquals(1, backend.loads.get());
    }

    @Test
    void registrationListsWhatCannotBeServedWithTheReason() throws Exception {
        Files.writeString(dir.resolve("text.gguf"), "hello");
        ModelEntry text = catalog.add(dir.resolve("text.gguf"), List.of());
        assertTrue(
                text.reason().orElseThrow().startsWith("not a readable GGUF file"),
                text.reason().toString());

        Path whole = model("whole", SynthSpec.tiny("qwen"));
        Path cut = dir.resolve("cut.gguf");
        Files.write(cut, java.util.Arrays.copyOf(Files.readAllBytes(whole), (int) Files.size(whole) - 100));
        assertTrue(catalog.add(cut, List.of()).reason().orElseThrow().startsWith("truncated: tensor "));

        Path odd = dir.resolve("odd.gguf");
        var w = SyntheticModels.writer(SynthSpec.tiny("qwen"));
        w.put("general.architecture", GgufValue.string("frobnitz"));
        w.write(odd);
        assertEquals(
                Optional.of("architecture frobnitz is not supported"),
                catalog.add(odd, List.of()).reason());

        Path bad = dir.resolve("bad.gguf");
        var b = SyntheticModels.writer(SynthSpec.tiny("qwen"));
        b.put("tokenizer.chat_template", GgufValue.string("{% broken"));
        b.write(bad);
        ModelEntry badTemplate = catalog.add(bad, List.of());
        assertEquals(Optional.of("the model's chat template does not parse: line 1: broken"), badTemplate.reason());
        assertEquals(badTemplate.reason(), badTemplate.templateError());

        Path clip = dir.resolve("projector.gguf");
        var c = SyntheticModels.writer(SynthSpec.tiny("qwen"));
        c.put("general.architecture", GgufValue.string("clip"));
        c.write(clip);
        assertThrows(forge.api.ForgeException.class, () -> catalog.add(clip, List.of()), "a projector is not a model");

        assertTrue(catalog.add(whole, List.of()).available());
        for (String id : new String[] {"text", "cut", "odd", "bad"}) {
            var e = assertThrows(
                    ModelUnavailableException.class,
                    () -> catalog.serve(catalog.find(id).orElseThrow()));
            assertEquals(ModelUnavailableException.Kind.UNAVAILABLE, e.kind());
        }
        assertEquals(0, backend.loads.get(), "nothing unavailable is ever loaded");
    }

    @Test
    void aliasesAreNamesOfTheirOwnAndNeverTwoModelsOne() {
        ModelEntry a = catalog.add(model("a", SynthSpec.tiny("qwen")), List.of());
        catalog.add(model("b", SynthSpec.tiny("qwen")), List.of());
        catalog.alias("coder", "a");
        assertEquals(a, catalog.find("coder").orElseThrow());
        assertEquals(List.of("coder"), a.descriptor().aliases());
        assertThrows(forge.api.ForgeException.class, () -> catalog.alias("coder", "b"));
        assertThrows(forge.api.ForgeException.class, () -> catalog.alias("x", "nobody"));
    }
}
