package forge.backend.llamacpp.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CudaLibrariesTest {

    private static Path touch(Path file) throws Exception {
        Files.createDirectories(file.getParent());
        return Files.writeString(file, "");
    }

    @Test
    void findsTheRuntimeInAPyenvPythonsNvidiaPackages(@TempDir Path home) throws Exception {
        Path site = home.resolve(".pyenv/versions/3.12.4/lib/python3.12/site-packages");
        Path cudart = touch(site.resolve("nvidia/cuda_runtime/lib/libcudart.so.13"));
        Path cublas = touch(site.resolve("nvidia/cublas/lib/libcublas.so.13"));
        Path cublasLt = touch(site.resolve("nvidia/cublas/lib/libcublasLt.so.13"));
        var runtime =
                CudaLibraries.find(List.of(), Map.of(), home, Map.of(), false).runtime();
        assertEquals(Optional.of(cudart), runtime.get("libcudart.so.13"));
        assertEquals(Optional.of(cublas), runtime.get("libcublas.so.13"));
        assertEquals(Optional.of(cublasLt), runtime.get("libcublasLt.so.13"));
    }

    @Test
    void findsItInAVirtualenvCondaAndTheCuda13WheelLayout(@TempDir Path home) throws Exception {
        Path venv = home.resolve("venv");
        Path a = touch(venv.resolve("lib/python3.11/site-packages/nvidia/cu13/lib/libcudart.so.13"));
        assertEquals(
                Optional.of(a),
                runtimeLibrary(List.of(), Map.of("VIRTUAL_ENV", venv.toString()), home, "libcudart.so.13"));
        Path b = touch(
                home.resolve("miniconda3/envs/ml/lib/python3.10/site-packages/nvidia/cublas/lib/libcublas.so.13"));
        assertEquals(Optional.of(b), runtimeLibrary(List.of(), Map.of(), home, "libcublas.so.13"));
    }

    @Test
    void theFlagThenLdLibraryPathThenAToolkitComeBeforeThePythonPackages(@TempDir Path home) throws Exception {
        touch(home.resolve(".local/lib/python3.12/site-packages/nvidia/cuda_runtime/lib/libcudart.so.13"));
        Path toolkit = home.resolve("cuda-13.0");
        Path fromToolkit = touch(toolkit.resolve("targets/x86_64-linux/lib/libcudart.so.13"));
        assertEquals(
                Optional.of(fromToolkit),
                runtimeLibrary(List.of(), Map.of("CUDA_HOME", toolkit.toString()), home, "libcudart.so.13"));
        Path ld = touch(home.resolve("ld/libcudart.so.13"));
        assertEquals(
                Optional.of(ld),
                runtimeLibrary(
                        List.of(),
                        Map.of(
                                "CUDA_HOME",
                                toolkit.toString(),
                                "LD_LIBRARY_PATH",
                                home.resolve("ld").toString()),
                        home,
                        "libcudart.so.13"));
        Path flag = touch(home.resolve("flag/libcudart.so.13"));
        assertEquals(
                Optional.of(flag),
                runtimeLibrary(
                        List.of(home.resolve("flag")),
                        Map.of("LD_LIBRARY_PATH", home.resolve("ld").toString()),
                        home,
                        "libcudart.so.13"));
    }

    /** Where {@code find} puts runtime library {@code name}, with no loader cache and the system folders left out. */
    private static Optional<Path> runtimeLibrary(List<Path> flag, Map<String, String> env, Path home, String name) {
        return CudaLibraries.find(flag, env, home, Map.of(), false).runtime().get(name);
    }

    @Test
    void theDriverComesFromTheLoadersCacheWhenNoFolderHasIt(@TempDir Path home) throws Exception {
        Path driver = touch(home.resolve("drv/libcuda.so.1"));
        assertEquals(
                Optional.of(driver),
                CudaLibraries.find(List.of(), Map.of(), home, Map.of("libcuda.so.1", driver), false)
                        .driver());
        assertTrue(CudaLibraries.find(List.of(), Map.of(), home, Map.of("libcuda.so.1", home.resolve("gone")), false)
                .driver()
                .isEmpty());
    }
}
