package forge.backend.llamacpp.ffm;

import forge.api.UserHome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the CPU backend variant ({@code libggml-cpu-haswell.so}, {@code -icelake}, ...) the way
 * {@code ggml_backend_load_best} does, and remembers the choice for this CPU.
 *
 * <p>{@code ggml_backend_load_all_from_path} opens every variant (fourteen 1 MB C++ libraries) to
 * ask each for its {@code ggml_backend_score()} on every start; that is most of a small model's
 * start-up. The winner depends only on the CPU and the files, so it is cached under
 * {@code ~/.cache/forge/cpu-backend/} keyed by both, and later starts load just that one.
 *
 * <p>The OpenMP build of a variant ({@code libggml-cpu-zen4-omp.so}, which
 * {@code plugins/llamacpp/ggml-omp.sh} builds, beside the prebuilt variants in the image and in
 * {@code ../omp/} in the build cache) scores the same as the prebuilt one of that name; on that tie
 * it wins, explicitly: its threads wait for each other in libgomp, which can sleep, where the
 * prebuilt variants' own thread pool spins, and in a JVM one compute thread preempted by another
 * thread keeps the others spinning. When it cannot load here it scores 0 and the prebuilt one wins.
 * Before any OpenMP build is opened, {@link OpenMp#boundSpinning()} sets the spin count libgomp
 * reads when it loads.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
final class CpuVariants {

    private static final Logger LOG = LoggerFactory.getLogger(CpuVariants.class);
    private static final String PREFIX = "libggml-cpu-";
    /** How {@code ggml-omp.sh} names the OpenMP build of a variant: {@code libggml-cpu-zen4-omp.so}. */
    static final String OPENMP_SUFFIX = "-omp.so";
    /** Where {@code ggml-omp.sh} writes it in the build cache, beside {@code lib/}. */
    static final String OPENMP_FOLDER = "omp";

    private CpuVariants() {}

    /**
     * The CPU variant to load, when the folder holds only CPU variants as loadable backends (the
     * CPU package); empty otherwise, and the caller lets ggml load everything.
     */
    static Optional<Path> best(Path dir) {
        return best(dir, UserHome.get());
    }

    /** {@link #best(Path)} with {@code home} as {@code ~}, where the choice is remembered. */
    static Optional<Path> best(Path dir, Path home) {
        List<Path> variants;
        boolean othersPresent;
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> backends = files.filter(p -> {
                        String n = p.getFileName().toString();
                        return n.startsWith("libggml-") && n.endsWith(".so") && !n.startsWith("libggml-base");
                    })
                    .sorted()
                    .toList();
            variants = backends.stream()
                    .filter(p -> p.getFileName().toString().startsWith(PREFIX))
                    .toList();
            othersPresent = variants.size() != backends.size();
        } catch (IOException e) {
            return Optional.empty();
        }
        List<Path> candidates = new ArrayList<>(variants);
        candidates.addAll(openMpBuilds(dir.resolveSibling(OPENMP_FOLDER)));
        if (candidates.stream().anyMatch(CpuVariants::isOpenMp)) {
            // libgomp reads its environment once, when it is loaded, and scoring an OpenMP build
            // loads it (as does ggml's own loader, when the caller leaves the choice to it below)
            OpenMp.boundSpinning();
        }
        if (variants.isEmpty() || othersPresent) {
            return Optional.empty();
        }
        Path cache = cacheFile(candidates, home);
        try {
            if (cache != null && Files.isRegularFile(cache)) {
                String name = Files.readString(cache, StandardCharsets.UTF_8).strip();
                Optional<Path> remembered = candidates.stream()
                        .filter(p -> p.getFileName().toString().equals(name))
                        .findFirst();
                if (remembered.isPresent()) {
                    return remembered;
                }
            }
        } catch (IOException e) {
            LOG.debug("cannot read {}: {}", cache, e.toString());
        }
        Path best = null;
        int bestScore = 0;
        for (Path variant : candidates) {
            int score = score(variant);
            boolean openMpOnATie = score == bestScore && best != null && isOpenMp(variant) && !isOpenMp(best);
            if (score > bestScore || openMpOnATie) {
                best = variant;
                bestScore = score;
            }
        }
        if (best != null && cache != null) {
            try {
                Files.createDirectories(cache.getParent());
                Path tmp = Files.createTempFile(cache.getParent(), "cpu", ".tmp");
                Files.writeString(tmp, best.getFileName().toString(), StandardCharsets.UTF_8);
                Files.move(tmp, cache, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException | UnsupportedOperationException e) {
                LOG.debug("cannot remember the CPU variant in {}: {}", cache, e.toString());
            }
        }
        return Optional.ofNullable(best);
    }

    /** Whether {@code variant} is the OpenMP build of a variant ({@code ggml-omp.sh}'s name). */
    static boolean isOpenMp(Path variant) {
        String n = variant.getFileName().toString();
        return n.startsWith(PREFIX) && n.endsWith(OPENMP_SUFFIX);
    }

    /** The OpenMP builds in the build cache's {@code omp/} folder; none when there is none. */
    private static List<Path> openMpBuilds(Path folder) {
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(CpuVariants::isOpenMp).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** {@code int ggml_backend_score(void)} of one variant, opened and closed again; 0 when it cannot run here. */
    private static int score(Path variant) {
        try (Arena arena = Arena.ofConfined()) {
            SymbolLookup lib = SymbolLookup.libraryLookup(variant, arena);
            Optional<MemorySegment> fn = lib.find("ggml_backend_score");
            if (fn.isEmpty()) {
                return 0;
            }
            return (int) Linker.nativeLinker()
                    .downcallHandle(fn.get(), FunctionDescriptor.of(ValueLayout.JAVA_INT))
                    .invokeExact();
        } catch (Throwable e) {
            LOG.debug("cannot score {}: {}", variant, e.toString());
            return 0;
        }
    }

    /** {@code ~/.cache/forge/cpu-backend/<hash of this CPU's flags and the variants' files>}; null without a home. */
    private static Path cacheFile(List<Path> variants, Path home) {
        // ~ is $HOME (forge.api.UserHome), not the password file's home that user.home reads
        if (home.getParent() == null) {
            return null;
        }
        // A key, not a secret: two CRCs make 64 bits without starting the JDK's security providers (~15 ms of a start).
        CRC32C crc32c = new CRC32C();
        CRC32 crc32 = new CRC32();
        Consumer<String> update = text -> {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            crc32c.update(bytes);
            crc32.update(bytes);
        };
        try {
            Path cpuinfo = Path.of("/proc/cpuinfo");
            if (Files.isReadable(cpuinfo)) {
                try (Stream<String> lines = Files.lines(cpuinfo)) {
                    lines.filter(l -> l.startsWith("flags") || l.startsWith("model name") || l.startsWith("vendor_id"))
                            .distinct()
                            .forEach(update);
                }
            }
            for (Path v : variants) {
                update.accept(v.toAbsolutePath() + ":" + Files.size(v) + ":"
                        + Files.getLastModifiedTime(v).toMillis());
            }
            String key = String.format("%08x%08x", crc32c.getValue(), crc32.getValue());
            return home.resolve(".cache/forge/cpu-backend").resolve(key);
        } catch (IOException | UncheckedIOException e) {
            return null;
        }
    }
}
