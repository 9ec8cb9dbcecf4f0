package forge.backend.llamacpp.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import forge.api.backend.ContextParams;
import forge.api.backend.FlashAttention;
import forge.api.backend.InferenceContext;
import forge.api.backend.KvCacheType;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
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
 * libgomp and the {@code -omp} variant are mapped, and libgomp waits passively.
 */
@SuppressWarnings("restricted")
class OpenMpTest {

    @Test
    void aLoadedModelComputesWithTheOpenMpVariantWaitingPassively(@TempDir Path tmp) throws Throwable {
        assumeTrue(
                System.getProperty("os.arch").equals("amd64"), "ggml-omp.sh builds the OpenMP variant on x86-64 only");
        boolean built = Files.isRegularFile(LlamaHome.home().resolve("omp/.verified"));
        // .ci/run sets FORGE_OMP=required: there, ggml-omp.sh fails rather than skip without a compiler
        assumeTrue(
                built || "required".equals(System.getenv("FORGE_OMP")),
                "plugins/llamacpp/ggml-omp.sh built no OpenMP variant (it needs gcc, g++, cmake and ninja)");
        String userPolicy = System.getenv(OpenMp.WAIT_POLICY); // the JVM's copy: the environment it started with

        try (LoadedModel model =
                        LlamaHome.backend().load(ModelLoadParams.of(LlamaHome.tinyModel("qwen")), LoadProgress.NONE);
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

        // What libgomp itself read at load (omp_display_env prints its settings to stderr): passive
        // means no spinning at all (GOMP_SPINCOUNT 0; libgomp's default spins 300000 times first,
        // and prints OMP_WAIT_POLICY 'PASSIVE' for its default too, so the spin count is the test).
        String env = displayEnv(tmp.resolve("omp-env.txt"));
        if (userPolicy == null && System.getenv("GOMP_SPINCOUNT") == null) {
            assertTrue(env.contains("GOMP_SPINCOUNT = '0'"), env);
            assertEquals("PASSIVE", OpenMp.getenv(OpenMp.WAIT_POLICY).orElseThrow());
        } else {
            assertEquals(userPolicy, OpenMp.getenv(OpenMp.WAIT_POLICY).orElse(null), "the user's policy is kept");
        }
    }

    @Test
    void aWaitPolicyTheUserSetIsLeftAlone() throws Throwable {
        // Runs after libgomp has read its environment or not at all (a later value changes nothing then).
        String before = OpenMp.getenv(OpenMp.WAIT_POLICY).orElse(null);
        try {
            OpenMp.setenv(OpenMp.WAIT_POLICY, "active");
            OpenMp.preferPassiveWait();
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
    void theWaitPolicyIsSetAlsoWhenGgmlPicksTheVariant(@TempDir Path dir) throws Throwable {
        assumeTrue(System.getenv("GOMP_SPINCOUNT") == null, "a spin count the user set keeps any policy out");
        // a folder with another backend: CpuVariants leaves the choice to ggml's loader, which may open the OpenMP
        // build
        Files.writeString(dir.resolve("libggml-cuda.so"), "not really");
        Files.writeString(dir.resolve("libggml-cpu-zen4" + CpuVariants.OPENMP_SUFFIX), "not really either");
        String before = OpenMp.getenv(OpenMp.WAIT_POLICY).orElse(null);
        try {
            unsetenv(OpenMp.WAIT_POLICY);
            assertTrue(CpuVariants.best(dir, dir).isEmpty());
            assertEquals("PASSIVE", OpenMp.getenv(OpenMp.WAIT_POLICY).orElse(null));
        } finally {
            if (before != null) {
                OpenMp.setenv(OpenMp.WAIT_POLICY, before);
            } else {
                unsetenv(OpenMp.WAIT_POLICY);
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
