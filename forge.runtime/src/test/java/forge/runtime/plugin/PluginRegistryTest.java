package forge.runtime.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.sampler.TokenCandidates;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.api.template.TemplateContext;
import forge.runtime.catalog.TemplateSelector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
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

        var echo = registry.templates().stream()
                .filter(d -> d.provider().family().equals("echo"))
                .toList();
        assertEquals(1, echo.size(), "the echo plugin is found exactly once: " + registry.sources());
        assertEquals(
                1,
                registry.renderChecks(),
                "a plugin's variants are rendered to check them (the boot layer's are not)");
        assertEquals("test.echo", echo.getFirst().module());
        assertEquals(
                plugins.resolve("echo.jar").toAbsolutePath().toString(),
                echo.getFirst().location());
        // It is loaded into a child layer of its own, not the boot layer.
        Module module = echo.getFirst().provider().getClass().getModule();
        assertTrue(module.isNamed());
        assertTrue(module.getLayer() != ModuleLayer.boot());
        assertEquals(List.of(ModuleLayer.boot()), module.getLayer().parents());
        // And it works.
        var template = echo.getFirst()
                .provider()
                .create(
                        "echo-1",
                        new TemplateContext(
                                new ModelDescriptor("m", List.of(), Path.of("m.gguf"), ModelMetadata.EMPTY), "", ""));
        assertEquals("ECHO:hi", template.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "hi")))));

        PluginSource broken = source(registry, "broken.jar");
        assertFalse(broken.ok());
        assertTrue(
                broken.failure().orElseThrow().contains("broken.jar")
                        || broken.failure().orElseThrow().contains("Exception"),
                broken.failure().orElseThrow());
        PluginSource good = source(registry, "echo.jar");
        assertTrue(good.ok());
        assertEquals(List.of("test.echo"), good.modules());
    }

    @Test
    void aProviderWhoseConstructorThrowsIsReportedAndSkipped() throws Exception {
        Path plugins = work.resolve("plugins");
        Map<String, String> sources = new java.util.HashMap<>(PluginJars.echoTemplate("test.bad", "test.bad"));
        sources.put(
                "test/bad/EchoTemplates.java",
                sources.get("test/bad/EchoTemplates.java")
                        .replace(
                                "public String family()",
                                "public EchoTemplates() { throw new IllegalStateException(\"no config\"); }\n    public String family()"));
        PluginJars.build(work, plugins.resolve("bad.jar"), sources);
        PluginJars.build(
                work, plugins.resolve("good").resolve("echo.jar"), PluginJars.echoTemplate("test.good", "test.good"));

        PluginRegistry registry = PluginRegistry.discover(List.of(plugins));

        PluginSource bad = source(registry, "bad.jar");
        assertTrue(
                bad.failure().orElseThrow().contains("no config"), bad.failure().orElseThrow());
        // The folder plugin beside it loads.
        assertTrue(
                registry.templates().stream().anyMatch(d -> d.module().equals("test.good")),
                registry.sources()::toString);
        assertTrue(registry.templates().stream().noneMatch(d -> d.module().equals("test.bad")));
    }

    @Test
    void aMissingFolderIsNotAnError() {
        PluginRegistry registry = PluginRegistry.discover(List.of(work.resolve("nowhere")));
        assertTrue(registry.sources().stream().allMatch(PluginSource::ok));
        assertEquals("boot", registry.sources().getFirst().location());
    }

    @Test
    void aCorruptJarsReasonKeepsItsCause() throws Exception {
        Path plugins = work.resolve("plugins");
        Files.createDirectories(plugins);
        Files.write(plugins.resolve("truncated.jar"), new byte[] {'P', 'K', 3, 4, 0x13, 0x37, 0, 0, 1, 2, 3});
        // A jar whose module-info.class is not a class file.
        try (var zip = new java.util.zip.ZipOutputStream(Files.newOutputStream(plugins.resolve("garbage.jar")))) {
            zip.putNextEntry(new java.util.zip.ZipEntry("module-info.class"));
            zip.write(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
            zip.closeEntry();
        }

        PluginRegistry registry = PluginRegistry.discover(List.of(plugins));

        String truncated = failure(registry, "truncated.jar");
        assertTrue(truncated.contains("zip END header not found"), truncated);
        String bad = failure(registry, "garbage.jar");
        assertTrue(bad.contains("magic"), bad);
    }

    /** The source whose location ends with {@code file}. */
    private static PluginSource source(PluginRegistry registry, String file) {
        return registry.sources().stream()
                .filter(s -> s.location().endsWith(file))
                .findFirst()
                .orElseThrow();
    }

    private static String failure(PluginRegistry registry, String file) {
        return source(registry, file).failure().orElseThrow();
    }

    /** The first warning of the source whose location ends with {@code file} says {@code expected}. */
    private static void assertFirstWarning(PluginRegistry registry, String file, String expected) {
        List<String> warnings = source(registry, file).warnings();
        assertTrue(warnings.getFirst().contains(expected), warnings.toString());
    }

    /** The module of the template provider that serves {@code variant}. */
    private static String providerModule(TemplateSelector selector, String variant) {
        return selector.providerOf(variant).orElseThrow().getClass().getModule().getName();
    }

    /** Builds {@code jar} from a plugin's {@code sources} with the source {@code file} changed by {@code edit}. */
    private void buildEdited(Path jar, Map<String, String> sources, String file, UnaryOperator<String> edit)
            throws Exception {
        Map<String, String> edited = new HashMap<>(sources);
        edited.put(file, edit.apply(edited.get(file)));
        PluginJars.build(work, jar, edited);
    }

    /** A template provider whose named method throws: reported failed and dropped, the others served. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"variants", "claim", "render", "family"})
    void aTemplateProviderThatThrowsIsReportedAndDropped(String method) throws Exception {
        Path plugins = work.resolve("plugins");
        buildEdited(
                plugins.resolve("bad.jar"),
                PluginJars.echoTemplate("test.bad", "test.bad"),
                "test/bad/EchoTemplates.java",
                code -> switch (method) {
                    case "variants" ->
                        code.replace(
                                "public List<TemplateVariant> variants() { return",
                                "public List<TemplateVariant> variants() { if (true) throw new IllegalStateException(\"variants broke\"); return");
                    case "claim" ->
                        code.replace(
                                "public String family()",
                                "public java.util.Optional<TemplateClaim> claim(forge.api.model.ModelDescriptor m) { throw new IllegalStateException(\"claim broke\"); }\n    public String family()");
                    case "render" ->
                        code.replace(
                                "public String render(ChatPrompt p) { return",
                                "public String render(ChatPrompt p) { if (true) throw new NullPointerException(\"render broke\"); return");
                    default ->
                        code.replace(
                                "public String family() { return \"echo\"; }",
                                "public String family() { throw new IllegalStateException(\"family broke\"); }");
                });
        PluginJars.build(work, plugins.resolve("good.jar"), PluginJars.echoTemplate("test.good", "test.good"));

        PluginRegistry registry = PluginRegistry.discover(List.of(plugins));

        String failure = failure(registry, "bad.jar");
        assertTrue(failure.contains(method + " broke") && failure.contains("dropped"), failure);
        assertTrue(registry.templates().stream().noneMatch(d -> d.module().equals("test.bad")));
        var selector = new TemplateSelector(registry.templates());
        assertEquals("test.good", providerModule(selector, "echo-1"));
        assertTrue(selector.variants().contains("echo-1"));
    }

    @Test
    void theHigherModuleVersionWinsATemplateNameAndBothAreWarned() throws Exception {
        Path plugins = work.resolve("plugins");
        PluginJars.build(
                work, plugins.resolve("a-old.jar"), PluginJars.echoTemplate("test.old", "test.old", "OLD:"), "1.2");
        PluginJars.build(
                work,
                plugins.resolve("b-new.jar"),
                PluginJars.echoTemplate("test.newer", "test.newer", "NEW:"),
                "1.10");

        PluginRegistry registry = PluginRegistry.discover(List.of(plugins));

        var selector = new TemplateSelector(registry.templates());
        assertEquals("test.newer", providerModule(selector, "echo-1"), "1.10 is higher than 1.2 although found second");
        assertEquals(1, selector.variants().stream().filter("echo-1"::equals).count());
        assertTrue(registry.templates().stream().noneMatch(d -> d.module().equals("test.old")), "it has nothing left");
        assertFirstWarning(registry, "a-old.jar", "shadowed by test.newer");
        assertFirstWarning(registry, "b-new.jar", "wins over test.old");
    }

    @Test
    void onATieTheFirstFolderWins() throws Exception {
        Path first = work.resolve("first");
        Path second = work.resolve("second");
        PluginJars.build(work, second.resolve("a.jar"), PluginJars.echoTemplate("test.second", "test.second"), "2.0");
        PluginJars.build(work, first.resolve("z.jar"), PluginJars.echoTemplate("test.first", "test.first"), "2.0");

        PluginRegistry registry = PluginRegistry.discover(List.of(first, second));

        var selector = new TemplateSelector(registry.templates());
        assertEquals("test.first", providerModule(selector, "echo-1"));
        assertFirstWarning(registry, "a.jar", "found first");
    }

    @Test
    void discoversASamplerPluginAndSettlesItsStageNames() throws Exception {
        Path plugins = work.resolve("plugins");
        PluginJars.build(
                work, plugins.resolve("ban.jar"), PluginJars.banStage("test.ban", "test.ban", "ban_one"), "1.0");
        PluginJars.build(
                work, plugins.resolve("ban2.jar"), PluginJars.banStage("test.ban2", "test.ban2", "ban_one"), "0.9");

        PluginRegistry registry = PluginRegistry.discover(List.of(plugins));

        SamplerStages.Stage stage = registry.samplerStages().find("ban_one").orElseThrow();
        assertEquals("test.ban", stage.module(), "version 1.0 beats 0.9");
        assertEquals(
                List.of("ban_one_token"),
                stage.info().parameters().stream().map(p -> p.name()).toList());
        assertEquals(1, registry.samplers().size());
        assertEquals(1, registry.samplerStages().all().size());
        var s = stage.provider().create("ban_one", new forge.api.sampler.StageArguments(Map.of("ban_one_token", 2L)));
        float[] logits = {1, 2, 3};
        s.apply(TokenCandidates.over(logits));
        assertEquals(Float.NEGATIVE_INFINITY, logits[2]);
        assertEquals(1f, logits[0]);
        assertFirstWarning(registry, "ban2.jar", "sampler stage 'ban_one'");
    }

    /** A sampler provider whose stages() or stage factory throws, or whose stage is misnamed: reported and dropped. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"stages", "create", "param", "builtin"})
    void aSamplerProviderThatFailsItsCheckIsDropped(String fault) throws Exception {
        Path plugins = work.resolve("plugins");
        buildEdited(
                plugins.resolve("bad.jar"),
                PluginJars.banStage("test.bad", "test.bad", fault.equals("builtin") ? "top_k" : "bad_stage"),
                "test/bad/Stages.java",
                code -> switch (fault) {
                    case "stages" ->
                        code.replace(
                                "public List<StageInfo> stages() {",
                                "public List<StageInfo> stages() { if (true) throw new IllegalStateException(\"stages broke\");");
                    case "create" ->
                        code.replace(
                                "int banned =",
                                "if (true) throw new UnsupportedOperationException(\"create broke\"); int banned =");
                    case "param" ->
                        code.replace("\"bad_stage_token\"", "\"token\"")
                                .replace("args.integer(\"bad_stage_token\")", "args.integer(\"token\")");
                    default -> code;
                });
        PluginJars.build(
                work, plugins.resolve("good.jar"), PluginJars.banStage("test.good", "test.good", "good_stage"));

        PluginRegistry registry = PluginRegistry.discover(List.of(plugins));

        String failure = failure(registry, "bad.jar");
        String expected = switch (fault) {
            case "stages" -> "stages broke";
            case "create" -> "create broke";
            case "param" -> "must be named bad_stage_<something>";
            default -> "is a built-in stage's";
        };
        assertTrue(failure.contains(expected) && failure.contains("dropped"), failure);
        assertTrue(registry.samplers().stream().noneMatch(d -> d.module().equals("test.bad")));
        assertTrue(registry.samplerStages().find("good_stage").isPresent());
        assertEquals(1, registry.samplerStages().all().size());
    }
}
