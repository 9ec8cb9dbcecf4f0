package forge.backend.llamacpp.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import forge.api.backend.ContextParams;
import forge.api.backend.FlashAttention;
import forge.api.backend.InferenceContext;
import forge.api.backend.KvCacheType;
import forge.api.backend.LoadedModel;
import forge.api.backend.TokenBatch;
import forge.backend.llamacpp.LlamaHome;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On x86-64, where {@code ggml-omp.sh} builds the OpenMP variant, a loaded model computes with it:
 * libgomp and the {@code -omp} variant are mapped, and libgomp spins only briefly before a waiting thread sleeps.
 */
@SuppressWarnings("restricted")
class OpenMpTest {

    @Test
    void aLoadedModelComputesWithTheOpenMpVariantSpinningBriefly(@TempDir Path tmp) throws Throwable {
        assumeTrue(
                System.getProperty("os.arch").equals("amd64"), "ggml-omp.sh builds the OpenMP variant on x86-64 only");
        boolean built = Files.isRegularFile(LlamaHome.home().resolve("omp/.verified"));
        // .ci/run sets FORGE_OMP=required: there, ggml-omp.sh fails rather than skip without a compiler
        assumeTrue(
                built || "required".equals(System.getenv("FORGE_OMP")),
                "plugins/llamacpp/ggml-omp.sh built no OpenMP variant (it needs gcc, g++, cmake and ninja)");
        // the JVM's copy: the environment it started with
        String userPolicy = System.getenv(OpenMp.WAIT_POLICY);
        String userSpins = System.getenv(OpenMp.SPIN_COUNT);

        try (LoadedModel model = LlamaHome.loadTiny("qwen");
                InferenceContext ctx = model.newContext(
                        new ContextParams(256, 64, 64, 1, 2, 2, FlashAttention.AUTO, KvCacheType.F16, true, false))) {
            int[] prompt = model.vocabulary().tokenize("Hello there, how are you?", true, false);
            TokenBatch b = ctx.batch();
            b.clear();
            for (int i = 0; i < prompt.length; i++) {
                b.add(prompt[i], i, 0, i == prompt.length - 1);
            }
            ctx.decode();
        }

        String maps = Files.readString(Path.of("/proc/self/maps"));
        assertTrue(maps.contains("/libgomp.so.1"), "libgomp is mapped");
        assertTrue(
                maps.lines()
                        .anyMatch(l -> l.matches(
                                ".*/libggml-cpu-[^/]*" + CpuVariants.OPENMP_SUFFIX.replace(".", "\\.") + "$")),
                "the OpenMP variant is mapped");
        LlamaLibrary lib = LlamaLibrary.load(LlamaHome.lib());
        assertTrue(lib.cpuBackend().contains("threads: OpenMP"), lib.cpuBackend());

        // What libgomp itself read at load (omp_display_env prints its settings to stderr): the
        // bounded spin (libgomp's default spins 300000 times before a waiting thread sleeps).
        String env = displayEnv(tmp.resolve("omp-env.txt"));
        if (userPolicy == null && userSpins == null) {
            assertTrue(env.contains("GOMP_SPINCOUNT = '" + OpenMp.SPINS + "'"), env);
            assertTrue(lib.cpuBackend().contains(OpenMp.SPIN_COUNT + "=" + OpenMp.SPINS), lib.cpuBackend());
        } else {
            assertEquals(userPolicy, OpenMp.getenv(OpenMp.WAIT_POLICY).orElse(null), "the user's policy is kept");
            assertEquals(userSpins, OpenMp.getenv(OpenMp.SPIN_COUNT).orElse(null), "the user's spin count is kept");
        }
    }

    @Test
    void aWaitPolicyTheUserSetIsLeftAlone() throws Throwable {
        // Runs after libgomp has read its environment or not at all (a later value changes nothing then).
        String before = OpenMp.getenv(OpenMp.WAIT_POLICY).orElse(null);
        try {
            OpenMp.setenv(OpenMp.WAIT_POLICY, "active");
            OpenMp.boundSpinning();
            assertEquals("active", OpenMp.getenv(OpenMp.WAIT_POLICY).orElseThrow());
        } finally {
            if (before != null) {
                OpenMp.setenv(OpenMp.WAIT_POLICY, before);
            } else {
                unsetenv(OpenMp.WAIT_POLICY);
            }
        }
    }

    @Test
    void theSpinIsBoundedAlsoWhenGgmlPicksTheVariant(@TempDir Path dir) throws Throwable {
        assumeTrue(System.getenv(OpenMp.WAIT_POLICY) == null, "a wait policy the user set keeps any spin count out");
        // a folder with another backend: CpuVariants leaves the choice to ggml's loader, which may open the OpenMP
        // build
        Files.writeString(dir.resolve("libggml-cuda.so"), "not really");
        Files.writeString(dir.resolve("libggml-cpu-zen4" + CpuVariants.OPENMP_SUFFIX), "not really either");
        String before = OpenMp.getenv(OpenMp.SPIN_COUNT).orElse(null);
        try {
            unsetenv(OpenMp.SPIN_COUNT);
            assertTrue(CpuVariants.best(dir, dir).isEmpty());
            assertEquals(OpenMp.SPINS, OpenMp.getenv(OpenMp.SPIN_COUNT).orElse(null));
        } finally {
            if (before != null) {
                OpenMp.setenv(OpenMp.SPIN_COUNT, before);
            } else {
                unsetenv(OpenMp.SPIN_COUNT);
            }
        }
    }

    private static void unsetenv(String name) throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle unsetenv = linker.downcallHandle(
                linker.defaultLookup().find("unsetenv").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            assertEquals(0, (int) unsetenv.invokeExact(arena.allocateFrom(name)));
        }
    }

    /** {@code omp_display_env(1)}'s output: stderr (fd 2) pointed at {@code file} while it runs. */
    private static String displayEnv(Path file) throws Throwable {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        MethodHandle creat = linker.downcallHandle(
                libc.find("creat").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        MethodHandle dup = linker.downcallHandle(
                libc.find("dup").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        MethodHandle dup2 = linker.downcallHandle(
                libc.find("dup2").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        MethodHandle close = linker.downcallHandle(
                libc.find("close").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            // the loaded libgomp: dlopen by its soname finds the mapped one
            MethodHandle display = linker.downcallHandle(
                    SymbolLookup.libraryLookup("libgomp.so.1", arena)
                            .find("omp_display_env")
                            .orElseThrow(),
                    FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT));
            int fd = (int) creat.invokeExact(arena.allocateFrom(file.toString()), 0600);
            assertTrue(fd >= 0, "creat " + file);
            int saved = (int) dup.invokeExact(2);
            int rc = (int) dup2.invokeExact(fd, 2);
            try {
                display.invokeExact(1);
            } finally {
                rc |= (int) dup2.invokeExact(saved, 2);
                rc |= (int) close.invokeExact(saved);
                rc |= (int) close.invokeExact(fd);
            }
            assertTrue(rc >= 0, "redirecting stderr");
        }
        return Files.readString(file);
    }
}
