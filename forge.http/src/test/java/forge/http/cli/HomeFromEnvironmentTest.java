package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real command in a child JVM whose {@code HOME} is a temporary folder: {@code ~} is that
 * folder, not the password file's home that Java's {@code user.home} reads (the JVM ignores
 * {@code HOME}, and a process cannot change its own environment, so only a child shows it).
 */
class HomeFromEnvironmentTest {

    @Test
    void forgeModelsListReadsTheModelsOfHome(@TempDir Path home) throws Exception {
        UserModels.folder(home, "only-here.gguf", UserModels.tiny("home-tiny"));
        UserModels.ollama(home, "here-too", "1b", UserModels.tiny("home-tiny"));
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElseThrow(),
                "--module-path",
                System.getProperty("jdk.module.path"),
                "--add-modules",
                "forge.backend.llamacpp,forge.template.generic,ch.qos.logback.classic",
                "--enable-native-access=forge.runtime,forge.backend.llamacpp"));
        for (String key : System.getProperties().stringPropertyNames()) {
            if (key.startsWith("forge.") && !key.equals("forge.user.home")) {
                command.add("-D" + key + "=" + System.getProperty(key));
            }
        }
        command.addAll(List.of(
                "-m",
                "forge.http/forge.http.cli.ForgeCli",
                "models",
                "list",
                "--plugins-dir",
                home.resolve("no-plugins").toString()));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("HOME", home.toString());
        pb.environment().remove("OLLAMA_MODELS");
        pb.environment().remove("HF_HUB_CACHE");
        pb.environment().remove("HF_HOME");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(
                out.contains("only-here")
                        && out.contains(
                                home.resolve(".forge/models/only-here.gguf").toString()),
                out);
        assertTrue(out.contains("here-too:1b"), out);
        assertTrue(Files.isDirectory(home.resolve(".forge/models")));
    }
}
