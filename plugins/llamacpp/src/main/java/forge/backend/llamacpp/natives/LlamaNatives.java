package forge.backend.llamacpp.natives;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One folder of llama.cpp natives and what must be loaded before them: the description both
 * llama.cpp backends hand the one FFM binding. The CPU package names its libraries
 * {@code libggml.v0.5.0.so} and {@code libllama.v0.5.0.so}, the CUDA package
 * {@code libggml.cuda.v0.5.0.so} and {@code libllama.cuda.v0.5.0.so}, a build from source
 * {@code libggml.so} and {@code libllama.so}; all share {@code libggml-base.so} and load their
 * compute backends ({@code libggml-cpu-*.so}, {@code libggml-cuda.so}) from the same folder.
 *
 * <p>{@link #problem} says whether the natives would load here without loading them (files present,
 * x86-64 ELF, every {@code DT_NEEDED} library found): what a backend's probe asks.
 *
 * {@snippet :
 * LlamaNatives natives = LlamaNatives.in(Path.of("/opt/forge/natives/llama/lib"));
 * natives.problem(LibrarySearch.system(System.getenv())).ifPresent(why -> System.out.println("unusable: " + why));
 * }
 *
 * @param directory the folder (absolute)
 * @param ggml      the file name of libggml in it
 * @param llama     the file name of libllama in it
 * @param preload   libraries loaded by absolute path first, so that the loader finds them by name when
 *                  a library in {@code directory} needs them (the CUDA runtime wherever the user has it)
 */
public record LlamaNatives(Path directory, String ggml, String llama, List<Path> preload) {

    /** The library every other one needs; the same name in every package. */
    public static final String GGML_BASE = "libggml-base.so";

    private static final List<String> GGML_NAMES = List.of("libggml.v0.5.0.so", "libggml.cuda.v0.5.0.so", "libggml.so");
    private static final List<String> LLAMA_NAMES =
            List.of("libllama.v0.5.0.so", "libllama.cuda.v0.5.0.so", "libllama.so");

    public LlamaNatives {
        directory = directory.toAbsolutePath().normalize();
        preload = List.copyOf(preload);
    }

    /** The natives in {@code directory}, their names as found there (the CPU package's when there are none). */
    public static LlamaNatives in(Path directory) {
        return new LlamaNatives(directory, present(directory, GGML_NAMES), present(directory, LLAMA_NAMES), List.of());
    }

    private static String present(Path dir, List<String> names) {
        return names.stream()
                .filter(n -> Files.isRegularFile(dir.resolve(n)))
                .findFirst()
                .orElse(names.getFirst());
    }

    /** These natives with {@code libraries} loaded before them. */
    public LlamaNatives withPreload(List<Path> libraries) {
        return new LlamaNatives(directory, ggml, llama, libraries);
    }

    /** libmtmd's file name, as {@code plugins/llamacpp/mtmd.sh} builds it. */
    public static final String MTMD = "libmtmd.so";

    /**
     * libmtmd for these natives (images in), where there is one: beside them (the image's
     * layout), else in {@code ../mtmd/} (the build cache's: {@code mtmd.sh} writes it next to
     * {@code lib/}). Empty when neither holds it: models then load without projectors.
     */
    public Optional<Path> mtmd() {
        for (Path candidate : List.of(
                directory.resolve(MTMD), directory.resolveSibling("mtmd").resolve(MTMD))) {
            if (Files.isRegularFile(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** The three libraries the binding looks its symbols up in, in dependency order. */
    public List<String> libraries() {
        return List.of(GGML_BASE, ggml, llama);
    }

    /** The compute backends in the folder: {@code libggml-cpu-*.so}, {@code libggml-cuda.so}, ... (sorted). */
    public List<Path> computeBackends() {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(p -> {
                        String n = p.getFileName().toString();
                        return n.startsWith("libggml-") && n.endsWith(".so") && !n.equals(GGML_BASE);
                    })
                    .sorted()
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /**
     * Why these natives would not load here, read from the files alone (nothing is loaded): a
     * missing library, one that is not x86-64 ELF, no CPU backend, or a needed library that
     * neither the folder, the preloaded libraries nor {@code system} has. Empty when they would load.
     */
    public Optional<String> problem(LibrarySearch system) {
        for (String name : libraries()) {
            if (!Files.isRegularFile(directory.resolve(name))) {
                return Optional.of("libllama not found at " + directory + ": missing " + name);
            }
        }
        List<Path> backends = computeBackends();
        if (backends.stream().noneMatch(p -> p.getFileName().toString().startsWith("libggml-cpu"))) {
            return Optional.of("no CPU backend (libggml-cpu*.so) in " + directory);
        }
        LibrarySearch search = system.before(List.of(directory));
        List<Path> files = new ArrayList<>();
        libraries().forEach(n -> files.add(directory.resolve(n)));
        files.addAll(backends);
        for (Path file : files) {
            ElfFile elf;
            try {
                elf = ElfFile.read(file);
            } catch (IOException e) {
                return Optional.of("cannot read " + file + ": " + e.getMessage());
            }
            if (elf.machine() != ElfFile.EM_X86_64) {
                return Optional.of(file + " is not an x86-64 library (e_machine " + elf.machine() + ")");
            }
            for (String needed : elf.needed()) {
                boolean preloaded = preload.stream()
                        .anyMatch(p -> p.getFileName().toString().equals(needed));
                if (!preloaded && search.find(needed).isEmpty()) {
                    return Optional.of(file.getFileName() + " needs " + needed + ", which is not found (searched "
                            + directory + ", LD_LIBRARY_PATH, the loader's cache and " + LibrarySearch.DEFAULT_FOLDERS
                            + ")");
                }
            }
        }
        return Optional.empty();
    }
}
