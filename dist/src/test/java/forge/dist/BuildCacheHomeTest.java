package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The build caches llama.cpp's natives under {@code ~/.cache/forge} with {@code ~} read from
 * {@code HOME}, as {@code bench/run.sh}, {@code bench/gpu-check.sh} and {@code natives.sh} read it:
 * a user whose {@code HOME} is not the account's home (Java's {@code user.home}) gets one cache, not
 * two that disagree. Runs the build's own lookup (the {@code llama.home} property) under another HOME.
 */
class BuildCacheHomeTest {

    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    private static String evaluate(Path home, String... extra) throws Exception {
        Path log = Files.createTempFile(home, "mvn", ".log");
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("forge.maven.home"), "bin", "mvn").toString(),
                "-B",
                "-q",
                "-N",
                "-Dstyle.color=never",
                "-Dmaven.repo.local=" + System.getProperty("forge.maven.repo"),
                "org.apache.maven.plugins:maven-help-plugin:3.5.2:evaluate",
                "-Dexpression=llama.home",
                "-DforceStdout"));
        command.addAll(List.of(extra));
        ProcessBuilder pb = new ProcessBuilder(command)
                .directory(ROOT.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.put("HOME", home.toString());
        env.put("JAVA_HOME", Path.of(System.getProperty("java.home")).toString());
        Process p = pb.start();
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "mvn help:evaluate did not finish");
        String out = Files.readString(log).strip();
        assertEquals(0, p.exitValue(), out);
        // the value is the last line; Maven may still wrap it in ANSI colour resets
        return out.lines().reduce((a, b) -> b).orElse("").replaceAll("\u001B\\[[0-9;]*m", "");
    }

    @Test
    void theNativesCacheFollowsHomeOfTheEnvironment(@TempDir Path home) throws Exception {
        assertTrue(!home.toString().equals(System.getProperty("user.home")));
        String llamaHome = evaluate(home);
        assertTrue(llamaHome.startsWith(home.resolve(".cache/forge/llama-") + ""), llamaHome);
    }

    @Test
    void oneDocumentedOverrideWins(@TempDir Path home) throws Exception {
        String llamaHome = evaluate(home, "-Dforge.cache=/elsewhere");
        assertTrue(llamaHome.startsWith("/elsewhere/llama-"), llamaHome);
    }
}
