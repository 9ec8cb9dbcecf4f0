package forge.backend.llamacpp.cuda;

import forge.backend.llamacpp.natives.LibrarySearch;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the NVIDIA driver and the CUDA 13 runtime are, in the order the package documentation
 * gives; pure file lookups over the environment and home folder it is given, so tests build a
 * fake tree.
 *
 * @param search the folders, in order, then the loader's cache
 */
record CudaLibraries(LibrarySearch search) {

    /** The driver's library. */
    static final String DRIVER = "libcuda.so.1";
    /** What {@code libggml-cuda.so} needs of the runtime, in load order ({@code libcublas} needs {@code libcublasLt}). */
    static final List<String> RUNTIME = List.of("libcudart.so.13", "libcublasLt.so.13", "libcublas.so.13");

    /**
     * @param libDirs {@code --cuda-lib-dir} folders
     * @param env     the environment ({@code LD_LIBRARY_PATH}, {@code CUDA_HOME}, {@code VIRTUAL_ENV}, ...)
     * @param home    the user's home folder
     * @param cache   the loader's cache
     */
    static CudaLibraries find(List<Path> libDirs, Map<String, String> env, Path home, Map<String, Path> cache) {
        return find(libDirs, env, home, cache, true);
    }

    /** As {@link #find(List, Map, Path, Map)}; {@code system}: also this machine's toolkit and system folders (tests leave them out). */
    static CudaLibraries find(
            List<Path> libDirs, Map<String, String> env, Path home, Map<String, Path> cache, boolean system) {
        List<Path> folders = new ArrayList<>(libDirs);
        folders.addAll(LibrarySearch.pathList(env.get("LD_LIBRARY_PATH")));
        List<Path> toolkits = new ArrayList<>();
        for (String var : List.of("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT")) {
            if (env.get(var) != null && !env.get(var).isBlank()) {
                toolkits.add(Path.of(env.get(var)));
            }
        }
        if (system) {
            toolkits.add(Path.of("/usr/local/cuda"));
            toolkits.addAll(glob(Path.of("/usr/local"), "cuda-*").reversed()); // the newest version first
            toolkits.add(Path.of("/opt/cuda"));
        }
        for (Path t : toolkits) {
            folders.add(t.resolve("lib64"));
            folders.add(t.resolve("targets/x86_64-linux/lib"));
        }
        if (system) {
            folders.addAll(LibrarySearch.DEFAULT_FOLDERS);
        }
        for (Path sitePackages : sitePackages(env, home, system)) {
            for (String lib : List.of("nvidia/cuda_runtime/lib", "nvidia/cublas/lib", "nvidia/cu13/lib")) {
                folders.add(sitePackages.resolve(lib));
            }
        }
        return new CudaLibraries(new LibrarySearch(folders, cache));
    }

    /** The driver, when there is one. */
    Optional<Path> driver() {
        return search.find(DRIVER);
    }

    /** Each runtime library by name, where found. */
    Map<String, Optional<Path>> runtime() {
        Map<String, Optional<Path>> found = new LinkedHashMap<>();
        RUNTIME.forEach(n -> found.put(n, search.find(n)));
        return found;
    }

    /**
     * Every Python {@code site-packages} (and Debian {@code dist-packages}) folder a user may have
     * installed {@code nvidia-cuda-runtime} and {@code nvidia-cublas} into: the active virtualenv or
     * conda environment, pyenv versions and their virtualenvs, conda installations and their
     * environments, {@code ~/.local}, the system's.
     */
    static List<Path> sitePackages(Map<String, String> env, Path home, boolean system) {
        List<Path> prefixes = new ArrayList<>();
        for (String var : List.of("VIRTUAL_ENV", "CONDA_PREFIX")) {
            if (env.get(var) != null && !env.get(var).isBlank()) {
                prefixes.add(Path.of(env.get(var)));
            }
        }
        prefixes.add(home.resolve(".venv"));
        prefixes.add(home.resolve(".local"));
        for (Path v : glob(home.resolve(".pyenv/versions"), "*")) {
            prefixes.add(v);
            prefixes.addAll(glob(v.resolve("envs"), "*"));
        }
        List<Path> condas = new ArrayList<>(
                List.of(home.resolve("miniconda3"), home.resolve("anaconda3"), home.resolve("miniforge3")));
        if (system) {
            condas.add(Path.of("/opt/conda"));
        }
        for (Path conda : condas) {
            prefixes.add(conda);
            prefixes.addAll(glob(conda.resolve("envs"), "*"));
        }
        if (system) {
            prefixes.addAll(List.of(Path.of("/usr/local"), Path.of("/usr")));
        }
        List<Path> out = new ArrayList<>();
        for (Path prefix : prefixes) {
            for (String lib : List.of("lib", "lib64")) {
                for (Path python : glob(prefix.resolve(lib), "python3*")) {
                    out.add(python.resolve("site-packages"));
                    out.add(python.resolve("dist-packages"));
                }
            }
        }
        if (system) {
            out.add(Path.of("/usr/lib/python3/dist-packages"));
        }
        return out.stream().filter(Files::isDirectory).distinct().toList();
    }

    /** The entries of {@code dir} matching {@code pattern}, sorted; none when it is not a folder. */
    private static List<Path> glob(Path dir, String pattern) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, pattern)) {
            s.forEach(out::add);
        } catch (IOException e) {
            return List.of();
        }
        out.sort(Comparator.naturalOrder());
        return out;
    }
}
