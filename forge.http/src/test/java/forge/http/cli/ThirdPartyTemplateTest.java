package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.template.ChatTemplateProvider;
import forge.lib.gguf.synth.SynthSpec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A template plugin built by a third party against the forge.api jar alone, dropped into the
 * plugins folder: the server finds it, lists it and renders with it when {@code --template} names
 * its variant.
 */
class ThirdPartyTemplateTest {

    @TempDir
    static Path work;

    @AutoClose
    static TestServer server;

    static Http http;

    @BeforeAll
    static void start() throws Exception {
        Path plugins = work.resolve("plugins");
        buildPlugin(plugins.resolve("shout-template.jar"));
        buildFlakyPlugin(plugins.resolve("flaky-template.jar"));
        server = servePlugins(plugins, "--template shout-1 -c 512 -np 1 -t 2");
        http = server.http();
    }

    /** Compiles a one-class template plugin against forge.api only (the module path holds nothing else) and packs it. */
    static void buildPlugin(Path jar) throws Exception {
        onePlugin(work, "com.example.shout", ChatTemplateProvider.class, "ShoutTemplates", jar, """
                package com.example.shout;

                import forge.api.template.*;
                import java.util.List;
                import java.util.Locale;

                public final class ShoutTemplates implements ChatTemplateProvider {
                    public String family() { return "shout"; }
                    public List<TemplateVariant> variants() { return List.of(new TemplateVariant("shout-1", "upper-cases every turn")); }
                    public ChatTemplate create(String variant, TemplateContext ctx) {
                        if (!variant.equals("shout-1")) throw new IllegalArgumentException(variant);
                        return new ChatTemplate() {
                            public String name() { return "shout-1"; }
                            public String render(ChatPrompt p) {
                                StringBuilder sb = new StringBuilder();
                                for (ChatMessage m : p.messages()) sb.append(m.role().wire()).append(": ").append(m.content().toUpperCase(Locale.ROOT)).append("\\n");
                                return sb.append(p.addGenerationPrompt() ? "assistant:" : "").toString();
                            }
                            public List<String> endOfTurn() { return List.of("\\n"); }
                        };
                    }
                }
                """);
    }

    /** A template plugin whose {@code variants()} answers at discovery and throws ever after. */
    static void buildFlakyPlugin(Path jar) throws Exception {
        onePlugin(work, "com.example.flaky", ChatTemplateProvider.class, "FlakyTemplates", jar, """
                package com.example.flaky;

                import forge.api.template.*;
                import java.util.List;

                public final class FlakyTemplates implements ChatTemplateProvider {
                    private static int calls;
                    public String family() { return "flaky"; }
                    public List<TemplateVariant> variants() {
                        if (calls++ > 0) throw new IllegalStateException("flaky variants");
                        return List.of(new TemplateVariant("flaky-1", "works once"));
                    }
                    public ChatTemplate create(String variant, TemplateContext ctx) {
                        return new ChatTemplate() {
                            public String name() { return "flaky-1"; }
                            public String render(ChatPrompt p) { return "x"; }
                        };
                    }
                }
                """);
    }

    /** The tiny qwen model served with {@code flags} (split at spaces) and {@code plugins} as the plugins folder. */
    static TestServer servePlugins(Path plugins, String flags) {
        return TestServer.serve(
                TestServer.model("tiny", SynthSpec.tiny("qwen")), flags, "--plugins-dir", plugins.toString());
    }

    /**
     * A plugin of one provider class, packed into {@code jar}: module {@code module}, requiring
     * forge.api alone and providing {@code service} with its class {@code className} (in the
     * package named as the module), whose source (package line and imports included) is
     * {@code source}; written and compiled under {@code work}.
     */
    static void onePlugin(Path work, String module, Class<?> service, String className, Path jar, String source)
            throws Exception {
        Path src = work.resolve(module + "-src");
        Path pkg = Files.createDirectories(src.resolve(module.replace('.', '/')));
        Files.writeString(src.resolve("module-info.java"), """
                module %s {
                    requires forge.api;
                    provides %s with %s.%s;
                }
                """.formatted(module, service.getName(), module, className));
        Files.writeString(pkg.resolve(className + ".java"), source);
        pack(src, Files.createDirectories(work.resolve(module + "-classes")), jar);
    }

    /** Compiles the sources under {@code src} against the forge.api jar alone into {@code classes}, and packs them into {@code jar}. */
    static void pack(Path src, Path classes, Path jar) throws Exception {
        Path api = Path.of(ChatTemplateProvider.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        List<String> javac =
                new ArrayList<>(List.of("--release", "25", "--module-path", api.toString(), "-d", classes.toString()));
        try (var files = Files.walk(src)) {
            files.filter(p -> p.toString().endsWith(".java")).forEach(p -> javac.add(p.toString()));
        }
        run("javac", javac);
        Files.createDirectories(jar.getParent());
        run("jar", List.of("--create", "--file", jar.toString(), "-C", classes.toString(), "."));
    }

    private static void run(String tool, List<String> args) {
        ToolProvider provider = ToolProvider.findFirst(tool)
                .orElseThrow(() -> new IllegalStateException(
                        tool + " is not available: run tests with --add-modules jdk.compiler,jdk.jartool"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = provider.run(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                args.toArray(String[]::new));
        assertEquals(0, rc, tool + " failed: " + out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theDroppedInPluginIsListedWithItsModule() throws Exception {
        JsonNode data = JSON.readTree(http.get("/v1/templates").body()).get("data");
        Map<String, JsonNode> byName = new HashMap<>();
        data.forEach(t -> byName.put(t.get("name").asText(), t));
        JsonNode shout = byName.get("shout-1");
        assertEquals("shout", shout.get("family").asText(), data.toString());
        assertEquals("com.example.shout", shout.get("module").asText());
        // The built-in families are still there beside it.
        assertEquals("forge.template.qwen", byName.get("qwen2.5").get("module").asText());
        // A provider that throws after its discovery is listed with the reason, never a 500.
        JsonNode flaky = byName.get("flaky-1");
        assertEquals("com.example.flaky", flaky.get("module").asText(), data.toString());
        assertTrue(flaky.get("error").asText().contains("flaky variants"), flaky.toString());
    }

    @Test
    void theModelRendersWithTheSelectedThirdPartyTemplate() throws Exception {
        JsonNode model =
                JSON.readTree(http.get("/v1/models").body()).get("data").get(0);
        assertEquals("shout-1", model.get("template").get("name").asText(), model.toString());
        for (String selector : List.of("", "\"template\": \"shout-1\",")) {
            HttpResponse<String> r = http.post(
                    "/apply-template",
                    "{" + selector + "\"messages\": [{\"role\": \"user\", \"content\": \"hi there\"}]}");
            JsonNode body = ok(r);
            assertEquals("shout-1", body.get("template").asText());
            assertEquals("user: HI THERE\nassistant:", body.get("prompt").asText());
        }
    }
}
