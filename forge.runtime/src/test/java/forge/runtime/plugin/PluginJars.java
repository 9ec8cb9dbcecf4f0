package forge.runtime.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import forge.api.template.ChatTemplateProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/** Builds real plugin jars in tests: compiles sources against the forge.api jar alone and packs them. */
final class PluginJars {

    private PluginJars() {}

    /** Where the forge.api classes are (its jar, or its classes folder in a reactor build). */
    static Path forgeApi() {
        try {
            return Path.of(ChatTemplateProvider.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Compiles {@code sources} (path inside the module → Java source) as one module against
     * forge.api only, and packs them into {@code jar}.
     */
    static Path build(Path work, Path jar, Map<String, String> sources) throws IOException {
        return build(work, jar, sources, "");
    }

    /** As {@link #build(Path, Path, Map)}, the module compiled with {@code --module-version version} unless empty. */
    static Path build(Path work, Path jar, Map<String, String> sources, String version) throws IOException {
        Path src = Files.createTempDirectory(work, "src");
        Path classes = Files.createTempDirectory(work, "classes");
        List<String> args = new ArrayList<>(
                List.of("--release", "25", "--module-path", forgeApi().toString(), "-d", classes.toString()));
        if (!version.isEmpty()) {
            args.addAll(List.of("--module-version", version));
        }
        for (var e : sources.entrySet()) {
            Path file = src.resolve(e.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, e.getValue());
            args.add(file.toString());
        }
        run("javac", args);
        Files.createDirectories(jar.getParent());
        run("jar", List.of("--create", "--file", jar.toString(), "-C", classes.toString(), "."));
        return jar;
    }

    private static void run(String tool, List<String> args) {
        ToolProvider provider = ToolProvider.findFirst(tool)
                .orElseThrow(() -> new IllegalStateException(
                        tool + " is not available: run tests with --add-modules jdk.compiler,jdk.jartool"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        int rc = provider.run(print, print, args.toArray(String[]::new));
        assertEquals(0, rc, tool + " failed: " + out.toString(StandardCharsets.UTF_8));
    }

    /** Every file under a folder, for debugging failed builds. */
    static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.toList();
        }
    }

    /** A trivial third-party template plugin: family {@code echo}, variant {@code echo-1}. */
    static Map<String, String> echoTemplate(String module, String pkg) {
        return echoTemplate(module, pkg, "ECHO:");
    }

    /** The echo template plugin, rendering with {@code prefix} before the last message. */
    static Map<String, String> echoTemplate(String module, String pkg, String prefix) {
        String provider = """
                package %1$s;

                import forge.api.template.*;
                import java.util.List;

                public final class EchoTemplates implements ChatTemplateProvider {
                    public String family() { return "echo"; }
                    public List<TemplateVariant> variants() { return List.of(new TemplateVariant("echo-1", "echoes the last message")); }
                    public ChatTemplate create(String variant, TemplateContext ctx) {
                        return new ChatTemplate() {
                            public String name() { return "echo-1"; }
                            public String render(ChatPrompt p) { return "%3$s" + p.messages().getLast().content(); }
                        };
                    }
                }
                """.formatted(pkg, "", prefix);
        String descriptor = """
                module %1$s {
                    requires forge.api;
                    provides forge.api.template.ChatTemplateProvider with %2$s.EchoTemplates;
                }
                """.formatted(module, pkg);
        return Map.of("module-info.java", descriptor, pkg.replace('.', '/') + "/EchoTemplates.java", provider);
    }

    /**
     * A third-party sampler plugin with one stage, {@code name}, that bans token {@code <name>_token}
     * (default 0). {@code body} replaces the class body's stage factory when not empty.
     */
    static Map<String, String> banStage(String module, String pkg, String name) {
        String provider = """
                package %1$s;

                import forge.api.sampler.*;
                import java.util.List;

                public final class Stages implements SamplerProvider {
                    public List<StageInfo> stages() {
                        return List.of(new StageInfo("%2$s", "bans one token",
                                List.of(StageParameter.integer("%2$s_token", 0, 0, 1000000, "the token to ban"))));
                    }
                    public SamplerStage create(String stage, StageArguments args) {
                        int banned = (int) args.integer("%2$s_token");
                        return c -> {
                            for (int i = 0; i < c.size(); i++) {
                                if (c.token(i) == banned) {
                                    c.ban(i);
                                }
                            }
                        };
                    }
                }
                """.formatted(pkg, name);
        String descriptor = """
                module %1$s {
                    requires forge.api;
                    provides forge.api.sampler.SamplerProvider with %2$s.Stages;
                }
                """.formatted(module, pkg);
        return Map.of("module-info.java", descriptor, pkg.replace('.', '/') + "/Stages.java", provider);
    }
}
