package forge.runtime.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.api.template.TemplateContext;
import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginRegistryTest {

    @TempDir
    Path work;

    @Test
    void discoversAPluginJarAndSkipsACorruptOneBesideIt() throws Exception {
        Path plugins = work.resolve("plugins");
        PluginJars.build(work, plugins.resolve("echo.jar"), PluginJars.echoTemplate("test.echo", "test.echo"));
        Files.write(plugins.resolve("broken.jar"), new byte[] {'P', 'K', 3, 4, 0x13, 0x37, 0, 0, 1, 2, 3});

        PluginRegistry registry = PluginRegistry.discover(List.of(plugins));

        var echo = registry.templates().stream().filter(d -> d.provider().family().equals("echo")).toList();
        assertEquals(1, echo.size(), "the echo plugin is found exactly once: " + registry.sources());
        assertEquals("test.echo", echo.getFirst().module());
        assertEquals(plugins.resolve("echo.jar").toAbsolutePath().toString(), echo.getFirst().location());
        // It is loaded into a child layer of its own, not the boot layer.
        Module module = echo.getFirst().provider().getClass().getModule();
        assertTrue(module.isNamed());
        assertTrue(module.getLayer() != ModuleLayer.boot());
        assertEquals(List.of(ModuleLayer.boot()), module.getLayer().parents());
        // And it works.
        var template = echo.getFirst().provider().create("echo-1", new TemplateContext(
                new ModelDescriptor("m", List.of(), Path.of("m.gguf"), ModelMetadata.EMPTY), "", ""));
        assertEquals("ECHO:hi", template.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "hi")))));

        PluginSource broken = registry.sources().stream()
                .filter(s -> s.location().endsWith("broken.jar")).findFirst().orElseThrow();
        assertFalse(broken.ok());
        assertTrue(broken.failure().orElseThrow().contains("broken.jar") || broken.failure().orElseThrow().contains("Exception"),
                broken.failure().orElseThrow());
        PluginSource good = registry.sources().stream()
                .filter(s -> s.location().endsWith("echo.jar")).findFirst().orElseThrow();
        assertTrue(good.ok());
        assertEquals(List.of("test.echo"), good.modules());
    }

    @Test
    void aProviderWhoseConstructorThrowsIsReportedAndSkipped() throws Exception {
        Path plugins = work.resolve("plugins");
        Map<String, String> sources = new java.util.HashMap<>(PluginJars.echoTemplate("test.bad", "test.bad"));
        sources.put("test/bad/EchoTemplates.java", sources.get("test/bad/EchoTemplates.java")
                .replace("public String family()", "public EchoTemplates() { throw new IllegalStateException(\"no config\"); }\n    public String family()"));
        PluginJars.build(work, plugins.resolve("bad.jar"), sources);
        PluginJars.build(work, plugins.resolve("good").resolve("echo.jar"), PluginJars.echoTemplate("test.good", "test.good"));

        PluginRegistry registry = PluginRegistry.discover(List.of(plugins));

        PluginSource bad = registry.sources().stream().filter(s -> s.location().endsWith("bad.jar")).findFirst().orElseThrow();
        assertTrue(bad.failure().orElseThrow().contains("no config"), bad.failure().orElseThrow());
        // The folder plugin beside it loads.
        assertTrue(registry.templates().stream().anyMatch(d -> d.module().equals("test.good")), registry.sources()::toString);
        assertTrue(registry.templates().stream().noneMatch(d -> d.module().equals("test.bad")));
    }

    @Test
    void aMissingFolderIsNotAnError() {
        PluginRegistry registry = PluginRegistry.discover(List.of(work.resolve("nowhere")));
        assertTrue(registry.sources().stream().allMatch(PluginSource::ok));
        assertEquals("boot", registry.sources().getFirst().location());
    }
}
