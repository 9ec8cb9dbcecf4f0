package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * STYLE.md rule 1, checked on the jars the image is linked from: every ForgeLM module is a named
 * (explicit) module whose name is its root package, and every package it holds starts with it;
 * and every one of them is linked into the image.
 */
class ModuleNamesTest {

    @Test
    void everyForgeModuleIsNamedForItsRootPackage() {
        Path jars = Path.of(System.getProperty("forge.dist.jars", "target/jars"));
        List<ModuleDescriptor> forge = ModuleFinder.of(jars).findAll().stream()
                .map(r -> r.descriptor())
                .filter(d -> d.name().startsWith("forge."))
                .toList();
        assertTrue(forge.size() >= 8, "ForgeLM's modules are in " + jars.toAbsolutePath() + ": " + forge);
        for (ModuleDescriptor d : forge) {
            assertFalse(d.isAutomatic(), d.name() + " has a module-info");
            for (String pkg : d.packages()) {
                assertTrue(
                        pkg.equals(d.name()) || pkg.startsWith(d.name() + "."),
                        "package " + pkg + " of module " + d.name() + " does not start with the module's name");
            }
        }
    }

    @Test
    void theImageLinksEveryForgeModule() throws Exception {
        Path jars = Path.of(System.getProperty("forge.dist.jars", "target/jars"));
        Path java = Path.of(System.getProperty("forge.image.dir", "target/forge"), "bin", "java");
        Set<String> forge = ModuleFinder.of(jars).findAll().stream()
                .map(r -> r.descriptor().name())
                .filter(n -> n.startsWith("forge."))
                .collect(Collectors.toCollection(TreeSet::new));
        assertTrue(
                forge.containsAll(List.of(
                        "forge.api",
                        "forge.runtime",
                        "forge.lib.gguf",
                        "forge.lib.grammar",
                        "forge.lib.text",
                        "forge.template.toolkit",
                        "forge.template.jinja",
                        "forge.http")),
                forge.toString());
        Process p = new ProcessBuilder(java.toString(), "--list-modules")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        // One "name@version" (or "name") per line.
        Set<String> linked = out.lines().map(l -> l.strip().split("@")[0]).collect(Collectors.toSet());
        for (String m : forge) {
            assertTrue(linked.contains(m), m + " is not in the image: " + out);
        }
    }
}
