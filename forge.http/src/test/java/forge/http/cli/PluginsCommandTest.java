package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatTemplateProvider;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class PluginsCommandTest {

    @TempDir
    Path work;

    @Test
    void theImagesOwnTemplatesAreNotRenderedAtEveryStart() {
        var registry = forge.runtime.plugin.PluginRegistry.discover(java.util.List.of());
        assertTrue(
                registry.templates().size() >= 5,
                "the boot layer's families: " + registry.templates().size());
        assertEquals(
                0, registry.renderChecks(), "built-in variants are rendered by the build's tests, not at each start");
    }

    @Test
    void listsBuiltInPluginsBackendVerdictsAndWhyABrokenPluginFailed() throws Exception {
        System.setProperty("forge.user.home", work.resolve("user-home").toString());
        Path plugins = Files.createDirectories(work.resolve("plugins"));
        Files.write(plugins.resolve("broken.jar"), new byte[] {'n', 'o', 't', ' ', 'a', ' ', 'j', 'a', 'r'});
        StringWriter out = new StringWriter();
        CommandLine cli = ForgeCli.commandLine("plugins");
        cli.setOut(new PrintWriter(out));
        int code = cli.execute("plugins", "--plugins-dir", plugins.toString());
        String text = out.toString();
        assertEquals(0, code, text);
        // Built in, from the boot layer.
        assertTrue(text.contains("ok     boot"), text);
        assertTrue(text.contains("backend llama.cpp-cpu (forge.backend.llamacpp)"), text);
        // the generic family: the model's own template, then llama-server's built-in names
        assertTrue(text.contains("template generic [generic, chatml, llama2, llama2-sys, "), text);
        assertTrue(text.contains(", solar-open] (forge.template.generic)"), text);
        // The backend was probed and chosen, with its reason.
        assertTrue(
                text.lines().anyMatch(l -> l.startsWith("  * llama.cpp-cpu") && l.contains("usable: llama.cpp v0.5.0")),
                text);
        // The corrupt jar is reported with where it is and why, and the command still succeeds.
        assertTrue(text.contains("FAILED " + plugins.resolve("broken.jar").toAbsolutePath()), text);
        assertTrue(text.lines().anyMatch(l -> l.trim().startsWith("reason:") && l.contains("Exception")), text);
    }

    /** Writes a one-class template plugin whose provider's body is {@code body}, and packs it with {@code --module-version}. */
    private Path templatePlugin(String module, String version, String body) throws Exception {
        Path jar = work.resolve("plugins").resolve(module + ".jar");
        ThirdPartyTemplateTest.onePlugin(
                work,
                module,
                ChatTemplateProvider.class,
                "T",
                jar,
                "package " + module + ";\nimport forge.api.template.*;\nimport java.util.List;\n"
                        + "public final class T implements ChatTemplateProvider {\n" + body
                        + "\npublic ChatTemplate create(String v, TemplateContext c) { return new ChatTemplate() {"
                        + " public String name() { return v; } public String render(ChatPrompt p) { return \"x\"; } }; } }");
        if (!version.isEmpty()) {
            var tool = java.util.spi.ToolProvider.findFirst("jar").orElseThrow();
            assertEquals(
                    0,
                    tool.run(
                            System.out, System.err, "--update", "--file", jar.toString(), "--module-version", version));
        }
        return jar;
    }

    @Test
    void warnsOfADuplicateNameAndReportsAProviderThatThrowsWithoutFailing() throws Exception {
        System.setProperty("forge.user.home", work.resolve("user-home").toString());
        String variants = "public String family() { return \"dup\"; }\n"
                + "public List<TemplateVariant> variants() { return List.of(new TemplateVariant(\"dup-1\", \"d\")); }";
        templatePlugin("test.older", "1.0", variants);
        templatePlugin("test.newer", "2.0", variants);
        templatePlugin(
                "test.thrower",
                "",
                "public String family() { return \"bad\"; }\n"
                        + "public List<TemplateVariant> variants() { throw new IllegalStateException(\"no variants today\"); }");
        StringWriter out = new StringWriter();
        CommandLine cli = ForgeCli.commandLine("plugins");
        cli.setOut(new PrintWriter(out));
        int code =
                cli.execute("plugins", "--plugins-dir", work.resolve("plugins").toString());
        String text = out.toString();
        assertEquals(0, code, text);
        assertTrue(
                text.lines()
                        .anyMatch(l -> l.contains("warning: template 'dup-1' of test.older")
                                && l.contains("shadowed by test.newer")
                                && l.contains("2.0 is higher than 1.0")),
                text);
        // Listed once among the chat templates, from the winner.
        assertEquals(
                java.util.List.of("dup-1 family dup d (test.newer)"),
                text.lines()
                        .filter(l -> l.startsWith("    dup-1"))
                        .map(l -> l.strip().replaceAll(" +", " "))
                        .toList(),
                text);
        assertTrue(
                text.lines()
                        .anyMatch(
                                l -> l.contains("reason:") && l.contains("no variants today") && l.contains("dropped")),
                text);
        // The built-in loop guard stage is listed with its parameters.
        assertTrue(
                text.lines().anyMatch(l -> l.contains("loop_guard ") && l.contains("(forge.sampler.loopguard)")), text);
        assertTrue(text.lines().anyMatch(l -> l.contains("loop_guard_n") && l.contains("default 12")), text);
    }
}
