package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's start-up settings. Its AOT cache holds the command line's classes: {@code forge --version} loads none of
 * picocli's from the image's files (its Java 5 class files are rewritten at build time, or the
 * cache would skip all ~230 of them), and the JVM reports no problem with the cache.
 */
class StartUpTest {

    @TempDir
    Path work;

    @Test
    void theCommandLineLoadsItsClassesFromTheCache() throws Exception {
        Path image = Path.of(System.getProperty("forge.image.dir", "target/forge"));
        assertTrue(Files.size(image.resolve("lib/forge.aot")) > 1 << 20, "an AOT cache was written");
        Path log = work.resolve("classes.log");
        ProcessBuilder pb = new ProcessBuilder(image.resolve("bin/forge").toString(), "--version")
                .redirectErrorStream(true)
                .redirectOutput(work.resolve("out.txt").toFile());
        pb.environment()
                .put(
                        "JAVA_OPTS",
                        "-Xlog:class+load=info:file=" + log + " -Xlog:aot=warning:file=" + work.resolve("aot.log"));
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "forge --version ended");
        String out = Files.readString(work.resolve("out.txt"), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.startsWith("ForgeLM "), out);
        assertEquals("", Files.readString(work.resolve("aot.log")).strip(), "the JVM maps the cache without a warning");
        List<String> fromFiles = Files.readAllLines(log).stream()
                .filter(l -> l.contains("source: jrt:/info.picocli"))
                .toList();
        assertEquals(List.of(), fromFiles, "picocli classes the cache does not hold");
        assertTrue(
                Files.readAllLines(log).stream()
                        .anyMatch(l -> l.contains("picocli.CommandLine ") && l.contains("shared objects file")),
                "picocli comes from the cache");
    }

    @Test
    void theImagesJavaCompilesWithC1Only() throws Exception {
        Path image = Path.of(System.getProperty("forge.image.dir", "target/forge"));
        Process p = new ProcessBuilder(image.resolve("bin/java").toString(), "-XX:+PrintFlagsFinal", "-version")
                .redirectErrorStream(true)
                .start();
        String flags = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertTrue(
                flags.lines().anyMatch(l -> l.matches("\\s*intx TieredStopAtLevel\\s+= 1 .*")),
                "C2 stays out of the start-up: "
                        + flags.lines()
                                .filter(l -> l.contains("TieredStopAtLevel"))
                                .toList());
    }
}
