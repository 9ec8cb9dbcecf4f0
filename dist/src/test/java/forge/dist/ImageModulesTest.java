package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every ForgeLM module the image is linked from is in the image: jlink takes a module only as a
 * root or as what a root requires, so a module that nothing requires any more would be left out
 * without a word.
 */
class ImageModulesTest {

    @Test
    void theImageHoldsEveryForgeModule() throws IOException, InterruptedException {
        Path jars = Path.of(System.getProperty("forge.dist.jars", "target/jars"));
        Set<String> built = ModuleFinder.of(jars).findAll().stream().map(r -> r.descriptor()).map(ModuleDescriptor::name)
                .filter(n -> n.startsWith("forge.")).collect(Collectors.toCollection(TreeSet::new));
        assertTrue(built.containsAll(Set.of("forge.api", "forge.runtime.gguf", "forge.runtime", "forge.http")), built.toString());

        Path image = Path.of(System.getProperty("forge.image.dir", "target/forge"));
        Process p = new ProcessBuilder(image.resolve("bin/java").toString(), "--list-modules").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "java --list-modules did not end");
        assertEquals(0, p.exitValue(), out);
        Set<String> linked = out.lines().map(l -> l.replaceFirst("@.*", "")).filter(n -> n.startsWith("forge."))
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(built, linked, "ForgeLM's modules in " + jars + " and in the image " + image);
    }
}
