package forge.runtime.plugin;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.spi.ToolProvider;

/**
 * Loads plugins folders as the server does and prints what it found: for plugin authors (and
 * their tests) to check a jar before they ship it, without the server.
 *
 * {@snippet lang=sh :
 * java -p forge-api.jar:forge-runtime.jar:forge-lib-gguf.jar:slf4j-api.jar \
 *      -m forge.runtime/forge.runtime.plugin.PluginCheck my-plugins/
 * }
 *
 * Exits 1 when a source in those folders failed (or, with {@code --strict}, has a warning), else 0.
 */
public final class PluginCheck {

    private PluginCheck() {}

    /**
     * Runs this check over {@code folder} in a new JVM whose module path is this JVM's module path
     * and class path, less the entries under {@code own}: a plugin's test, whose own classes would
     * otherwise be built in, checks its packed jar as users will install it.
     *
     * @return the check's output
     * @throws IllegalStateException when the check fails, with its output
     */
    public static String fork(Path folder, Path own) throws IOException, InterruptedException {
        String here = System.getProperty("jdk.module.path", "")
                + File.pathSeparator
                + System.getProperty("java.class.path", "");
        List<String> path = Arrays.stream(here.split(File.pathSeparator))
                .filter(e -> !e.isEmpty() && !Path.of(e).toAbsolutePath().startsWith(own.toAbsolutePath()))
                .toList();
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-p",
                        String.join(File.pathSeparator, path),
                        "-m",
                        "forge.runtime/" + PluginCheck.class.getName(),
                        folder.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("the plugin check failed:\n" + out);
        }
        return out;
    }

    /**
     * Packs {@code classes} (a plugin's compiled classes and {@code module-info}) into {@code jar}
     * with the JDK's {@code jar} tool, then runs {@link #fork} over the jar's folder, less the
     * entries under {@code own}: a plugin's test checks the jar it would ship, dropped into a
     * plugins folder as users install it.
     *
     * @return the check's output
     * @throws IllegalStateException when the jar cannot be made or the check fails
     */
    public static String forkPacked(Path classes, Path jar, Path own) throws IOException, InterruptedException {
        Files.createDirectories(jar.toAbsolutePath().getParent());
        ToolProvider tool =
                ToolProvider.findFirst("jar").orElseThrow(() -> new IllegalStateException("no jar tool in this JDK"));
        int rc = tool.run(System.out, System.err, "--create", "--file", jar.toString(), "-C", classes.toString(), ".");
        if (rc != 0) {
            throw new IllegalStateException("jar --create " + jar + " exited " + rc);
        }
        return fork(jar.toAbsolutePath().getParent(), own);
    }

    /**
     * What a plugin's own test calls, run from its Maven module's folder: packs the module's
     * {@code target/classes} into {@code jarName} in a plugins folder under {@code work}, checks it
     * with {@link #forkPacked} (the module's {@code target} left out of the path), and requires the
     * line that says the jar loaded, holding {@code module} alone.
     *
     * @return the check's output
     * @throws IllegalStateException when the jar cannot be made, the check fails, or the jar did
     *     not load as {@code module}
     */
    public static String forkModuleBuild(Path work, String jarName, String module)
            throws IOException, InterruptedException {
        Path jar = work.resolve("plugins").resolve(jarName);
        String out = forkPacked(Path.of("target", "classes"), jar, Path.of("target"));
        String loaded = "ok " + jar.toAbsolutePath() + " [" + module + "]";
        if (!out.contains(loaded)) {
            throw new IllegalStateException("the plugin check did not print \"" + loaded + "\":\n" + out);
        }
        return out;
    }

    public static void main(String[] args) {
        boolean strict = Arrays.asList(args).contains("--strict");
        List<Path> folders = Arrays.stream(args)
                .filter(a -> !a.equals("--strict"))
                .map(Path::of)
                .toList();
        PluginRegistry registry = PluginRegistry.discover(folders);
        boolean bad = false;
        for (PluginSource s : registry.sources()) {
            if (s.location().equals("boot")) {
                continue;
            }
            System.out.println((s.ok() ? "ok " : "FAILED ") + s.location() + " " + s.modules());
            s.providers().forEach(p -> System.out.println("  " + p));
            s.failure().ifPresent(f -> System.out.println("  reason: " + f));
            s.warnings().forEach(w -> System.out.println("  warning: " + w));
            bad |= !s.ok() || (strict && !s.warnings().isEmpty());
        }
        for (Discovered<?> d : registry.templates()) {
            if (!d.location().equals("boot")) {
                d.names().forEach(n -> System.out.println("template " + n + " (" + d.module() + ")"));
            }
        }
        for (SamplerStages.Stage st : registry.samplerStages().all()) {
            System.out.println("stage " + st.info().name() + " (" + st.module() + ") "
                    + st.info().parameters().stream()
                            .map(p -> p.name() + "=" + p.fallback())
                            .toList());
        }
        System.exit(bad ? 1 : 0);
    }
}
