package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.BackendException;
import forge.api.backend.Availability;
import forge.api.backend.BackendContext;
import forge.api.backend.BackendProvider;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LlamaCppProviderTest {

    @Test
    void probesUsableWithTheCachedNatives() {
        Availability a = new LlamaCppProvider().probe(LlamaHome.context());
        assertInstanceOf(Availability.Usable.class, a, a.detail());
        assertTrue(a.detail().startsWith("llama.cpp v0.5.0"), a.detail());
        assertTrue(a.detail().contains(LlamaHome.lib().toString()), a.detail());
    }

    /** A copy of the natives in {@code home/lib}: a folder no other test loads from. */
    private static Path copyOfTheNatives(Path home) throws java.io.IOException {
        Path lib = Files.createDirectories(home.resolve("lib"));
        try (var files = Files.list(LlamaHome.lib())) {
            for (Path f : files.filter(f -> f.toString().endsWith(".so")).toList()) {
                Files.copy(f, lib.resolve(f.getFileName()));
            }
        }
        return lib;
    }

    @Test
    void probingLoadsNothing(@TempDir Path home) throws Exception {
        // A copy of the natives in a folder of its own: whatever other tests loaded, nothing of this copy may be
        // mapped.
        Path lib = copyOfTheNatives(home);
        Availability a = new LlamaCppProvider()
                .probe(new BackendContext(home, Map.of(LlamaCppProvider.LLAMA_HOME, home.toString())));
        assertTrue(a.isUsable(), a.detail());
        assertTrue(a.detail().contains(lib.toString()), a.detail());
        String maps = Files.readString(Path.of("/proc/self/maps"));
        assertFalse(maps.contains(home.toString()), "the probe mapped a library of " + home + ":\n" + maps);
    }

    @Test
    void aLibraryWhoseNeededLibraryIsMissingIsUnusableAndSaysWhich(@TempDir Path home) throws Exception {
        Path lib = copyOfTheNatives(home);
        forge.backend.llamacpp.natives.ElfFileTest.renameNeeded(
                lib.resolve("libllama.v0.5.0.so"), "libstdc++.so.6", "libstdc++.so.X");
        Availability a = new LlamaCppProvider()
                .probe(new BackendContext(home, Map.of(LlamaCppProvider.LLAMA_HOME, home.toString())));
        assertFalse(a.isUsable());
        assertTrue(a.detail().contains("libllama.v0.5.0.so needs libstdc++.so.X, which is not found"), a.detail());
    }

    @Test
    void aMissingLibraryFolderIsUnusableWithItsPath(@TempDir Path empty) {
        // A folder other than the loaded one: either "not found" (checked first) or "already loaded from".
        BackendContext ctx = new BackendContext(empty, Map.of(LlamaCppProvider.LLAMA_HOME, empty.toString()));
        Availability a = new LlamaCppProvider().probe(ctx);
        assertFalse(a.isUsable());
        assertTrue(a.detail().contains(empty.resolve("lib").toString()), a.detail());
        BackendException e = assertThrows(BackendException.class, () -> new LlamaCppProvider().create(ctx));
        assertTrue(e.getMessage().contains(empty.resolve("lib").toString()), e.getMessage());
    }

    @Test
    void withoutTheSettingItLooksUnderTheForgeHome(@TempDir Path home) {
        BackendContext ctx = new BackendContext(home, Map.of());
        assertEquals(home.resolve("natives/llama/lib").toAbsolutePath(), LlamaCppProvider.libraryDirectory(ctx));
        Availability a = new LlamaCppProvider().probe(ctx);
        assertFalse(a.isUsable());
        assertTrue(a.detail().contains(home.resolve("natives/llama/lib").toString()), a.detail());
    }

    @Test
    void nameAndNoNativeWorkInTheConstructor() {
        BackendProvider p = new LlamaCppProvider();
        assertEquals("llama.cpp-cpu", p.name());
        assertEquals(0, p.priority());
        assertEquals("llama.cpp-cpu", LlamaHome.backend().name());
    }

    @Test
    void theModuleProvidesTheBackendAndEveryPackageStartsWithItsName() {
        Module module = LlamaCppProvider.class.getModule();
        assertTrue(module.isNamed(), "tests run on the module path");
        ModuleDescriptor d = module.getDescriptor();
        assertEquals("forge.backend.llamacpp", d.name());
        assertTrue(
                d.provides().stream()
                        .anyMatch(p -> p.service().equals(BackendProvider.class.getName())
                                && p.providers().equals(java.util.List.of(LlamaCppProvider.class.getName()))),
                d.provides().toString());
        // Only the natives package, for the CUDA plugin; the binding (ffm) and the product classes stay inside.
        assertEquals(
                java.util.Set.of("forge.backend.llamacpp.natives"),
                d.exports().stream()
                        .map(ModuleDescriptor.Exports::source)
                        .collect(java.util.stream.Collectors.toSet()));
        assertTrue(
                d.exports().stream().noneMatch(ModuleDescriptor.Exports::isQualified),
                d.exports().toString());
        for (String pkg : d.packages()) {
            assertTrue(pkg.equals(d.name()) || pkg.startsWith(d.name() + "."), pkg);
        }
    }
}
