package forge.dist;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * STYLE rule 1, checked on the jars the image is linked from: every ForgeLM module is a named
 * (explicit) module whose name is its root package, and every package it holds starts with it.
 */
class ModuleNamesTest {

    @Test
    void everyForgeModuleIsNamedForItsRootPackage() {
        Path jars = Path.of(System.getProperty("forge.dist.jars", "target/jars"));
        List<ModuleDescriptor> forge = ModuleFinder.of(jars).findAll().stream().map(r -> r.descriptor())
                .filter(d -> d.name().startsWith("forge.")).toList();
        assertTrue(forge.size() >= 8, "ForgeLM's modules are in " + jars.toAbsolutePath() + ": " + forge);
        for (ModuleDescriptor d : forge) {
            assertFalse(d.isAutomatic(), d.name() + " has a module-info");
            for (String pkg : d.packages()) {
                assertTrue(pkg.equals(d.name()) || pkg.startsWith(d.name() + "."),
                        "package " + pkg + " of module " + d.name() + " does not start with the module's name");
            }
        }
    }
}
