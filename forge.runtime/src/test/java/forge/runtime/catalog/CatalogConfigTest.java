package forge.runtime.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.Availability;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import forge.runtime.BackendChoice;
import forge.runtime.engine.EngineConfig;
import forge.runtime.engine.PromptCache;
import forge.runtime.engine.PromptCacheStore;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The catalog's configuration: built once, what the builder set, and what the registry and loader act on. */
class CatalogConfigTest {

    @TempDir
    Path dir;

    final ModelCatalogTest.HeldBackend backend = new ModelCatalogTest.HeldBackend();

    @Test
    void theConfigurationIsWhatTheBuilderSet() throws Exception {
        EngineConfig engine = EngineConfig.defaults().withContext(1024, 2);
        ContextSizing.Policy policy = ContextSizing.Policy.auto(1L << 30);
        PromptCache cache = new PromptCache(1 << 20);
        ModelLoader.Lifecycle lifecycle =
                new ModelLoader.Lifecycle(KeepAlive.parse("5m"), new UnloadPolicy(2, 1L << 30), Duration.ofSeconds(3));
        List<BackendChoice> choices =
                List.of(new BackendChoice("held", "forge.test", "boot", 1, Availability.usable("test"), true));
        try (PromptCacheStore store = new PromptCacheStore(dir.resolve("cache"), cache)) {
            CatalogConfig config = ModelCatalogTest.config(backend)
                    .engineConfig(engine)
                    .contextPolicy(policy)
                    .template("generic")
                    .modelTemplate("Coder", "plain")
                    .templateSource("{{ messages }}")
                    .mmap(true)
                    .promptCache(cache, store)
                    .lifecycle(lifecycle)
                    .backendChoices(choices)
                    .build();
            assertSame(backend, config.backend());
            assertSame(engine, config.engineConfig());
            assertSame(policy, config.contextPolicy());
            assertEquals("generic", config.templateName());
            assertEquals(Optional.of("plain"), config.modelTemplate("coder"), "a model's name ignores case");
            assertEquals(Map.of("coder", "plain"), config.modelTemplates());
            assertEquals(Optional.of("{{ messages }}"), config.templateSource());
            assertTrue(config.mmap());
            assertSame(cache, config.promptCache());
            assertEquals(Optional.of(store), config.promptCacheStore());
            assertSame(lifecycle, config.lifecycle());
            assertEquals(choices, config.backendChoices());
            // and the catalog answers with it
            ModelCatalog catalog = new ModelCatalog(config);
            try {
                assertSame(config, catalog.config());
                assertSame(policy, catalog.contextPolicy());
                assertSame(lifecycle, catalog.lifecycle());
                assertEquals(choices, catalog.backendChoices());
                assertEquals("held", catalog.backendName());
            } finally {
                catalog.loader().close(); // the store is the test's to close
            }
        }
    }

    @Test
    void unsetSettingsHaveTheirDefaultsAndTheContextFollowsTheFinalEngineSettings() {
        CatalogConfig defaults = ModelCatalogTest.config(backend).build();
        assertEquals(EngineConfig.defaults(), defaults.engineConfig());
        assertEquals("", defaults.templateName());
        assertEquals(Optional.empty(), defaults.templateSource());
        assertTrue(defaults.mmap(), "weights are mapped unless told otherwise (--no-mmap)");
        assertSame(PromptCache.OFF, defaults.promptCache());
        assertEquals(Optional.empty(), defaults.promptCacheStore());
        assertSame(ModelLoader.Lifecycle.DEFAULT, defaults.lifecycle());
        assertEquals(List.of(), defaults.backendChoices());
        assertEquals(ContextSizing.Policy.fixed(EngineConfig.defaults().contextSize()), defaults.contextPolicy());

        // the default policy is taken from the engine settings at build, not when they were given
        CatalogConfig.Builder b = ModelCatalogTest.config(backend);
        b.engineConfig(EngineConfig.defaults().withContext(777, 1));
        assertEquals(ContextSizing.Policy.fixed(777), b.build().contextPolicy());
    }

    @Test
    void aSettingGivenAfterTheBuildChangesNothingBuilt() {
        List<BackendChoice> choices = new ArrayList<>();
        CatalogConfig.Builder b =
                ModelCatalogTest.config(backend).backendChoices(choices).modelTemplate("a", "plain");
        CatalogConfig config = b.build();
        b.mmap(false)
                .template("other")
                .modelTemplate("b", "plain")
                .templateSource("x")
                .lifecycle(new ModelLoader.Lifecycle(KeepAlive.FOREVER, UnloadPolicy.UNLIMITED, Duration.ofSeconds(1)));
        choices.add(new BackendChoice("late", "m", "boot", 0, Availability.usable("late"), false));
        assertTrue(config.mmap());
        assertEquals("", config.templateName());
        assertEquals(Map.of("a", "plain"), config.modelTemplates());
        assertEquals(Optional.empty(), config.templateSource());
        assertSame(ModelLoader.Lifecycle.DEFAULT, config.lifecycle());
        assertEquals(List.of(), config.backendChoices());
        assertThrows(
                UnsupportedOperationException.class,
                () -> config.modelTemplates().put("c", "plain"));
        assertThrows(
                UnsupportedOperationException.class,
                () -> config.backendChoices().clear());
    }

    @Test
    void noSettingCanBeGivenToABuiltCatalog() {
        for (Field f : CatalogConfig.class.getDeclaredFields()) {
            assertTrue(Modifier.isFinal(f.getModifiers()), "CatalogConfig." + f.getName() + " is final");
        }
        for (Class<?> c : List.of(CatalogConfig.class, ModelCatalog.class, ModelRegistry.class, ModelLoader.class)) {
            for (Method m : c.getMethods()) {
                String n = m.getName();
                assertFalse(
                        n.startsWith("use") || n.startsWith("set") || n.startsWith("configure"),
                        c.getSimpleName() + "." + n + " would configure after construction");
            }
        }
        assertTrue(
                CatalogConfig.class.getDeclaredConstructors().length == 1
                        && Modifier.isPrivate(CatalogConfig.class.getDeclaredConstructors()[0].getModifiers()),
                "only the builder makes one");
    }

    @Test
    void theRegistryAndTheLoaderActOnTheConfiguration() throws Exception {
        Path file = dir.resolve("m.gguf");
        SyntheticModels.write(SynthSpec.tiny("qwen"), file);
        // --chat-template-file: every model registered gets the given template as its own
        try (ModelCatalog catalog = new ModelCatalog(
                ModelCatalogTest.config(backend).templateSource("{% broken").build())) {
            assertEquals(
                    Optional.of("the model's chat template does not parse: line 1: broken"),
                    catalog.add(file, List.of()).reason());
        }
        // a per-model template nobody renders is the command line's error, named at registration
        try (ModelCatalog catalog = new ModelCatalog(
                ModelCatalogTest.config(backend).modelTemplate("M", "nobody").build())) {
            assertThrows(forge.api.ForgeException.class, () -> catalog.add(file, List.of()));
        }
        // --no-mmap reaches the backend's load (mapping is the default)
        try (ModelCatalog catalog =
                new ModelCatalog(ModelCatalogTest.config(backend).mmap(false).build())) {
            ModelEntry entry = catalog.add(file, List.of());
            backend.release.countDown();
            assertThrows(ExecutionException.class, () -> catalog.load(entry).get(10, TimeUnit.SECONDS));
            assertFalse(backend.lastParams.useMmap());
        }
    }
}
