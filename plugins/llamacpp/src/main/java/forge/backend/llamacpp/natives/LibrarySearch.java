package forge.backend.llamacpp.natives;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a shared library would be found, decided in Java: an ordered list of folders, then the
 * dynamic loader's cache. It mirrors what {@code ld.so} searches for a {@code DT_NEEDED} name
 * ({@code LD_LIBRARY_PATH}, then {@code /etc/ld.so.cache}, then the default folders), with the
 * caller's own folders in front (a {@code --cuda-lib-dir}, the libraries' own folder for
 * {@code $ORIGIN}).
 *
 * @param folders searched in order, before the loader's cache
 * @param cache   the loader's cache, name to path ({@code ldconfig -p}); empty where there is none
 */
public record LibrarySearch(List<Path> folders, Map<String, Path> cache) {

    /** The folders {@code ld.so} searches last on x86-64 Linux (Debian's multiarch ones first). */
    public static final List<Path> DEFAULT_FOLDERS = List.of(
            Path.of("/lib/x86_64-linux-gnu"),
            Path.of("/usr/lib/x86_64-linux-gnu"),
            Path.of("/lib64"),
            Path.of("/usr/lib64"),
            Path.of("/lib"),
            Path.of("/usr/lib"));

    private static volatile Map<String, Path> ldconfig;

    public LibrarySearch {
        folders = List.copyOf(new LinkedHashSet<>(folders));
        cache = Map.copyOf(cache);
    }

    /**
     * What the loader of this process searches: {@code LD_LIBRARY_PATH} from {@code env}, the
     * loader's cache, the default folders.
     */
    public static LibrarySearch system(Map<String, String> env) {
        List<Path> folders = new ArrayList<>(pathList(env.get("LD_LIBRARY_PATH")));
        folders.addAll(DEFAULT_FOLDERS);
        return new LibrarySearch(folders, loaderCache());
    }

    /** This search with {@code first} searched before everything else. */
    public LibrarySearch before(List<Path> first) {
        List<Path> all = new ArrayList<>(first);
        all.addAll(folders);
        return new LibrarySearch(all, cache);
    }

    /** The first regular file named {@code name} in the folders, else the loader's cache. */
    public Optional<Path> find(String name) {
        for (Path folder : folders) {
            Path candidate = folder.resolve(name);
            if (Files.isRegularFile(candidate)) {
                return Optional.of(candidate.toAbsolutePath());
            }
        }
        Path cached = cache.get(name);
        return cached != null && Files.isRegularFile(cached) ? Optional.of(cached) : Optional.empty();
    }

    /** A {@code :}-separated list of folders, empty entries dropped. */
    public static List<Path> pathList(String value) {
        List<Path> out = new ArrayList<>();
        if (value != null) {
            for (String p : value.split(":")) {
                if (!p.isBlank()) {
                    out.add(Path.of(p.strip()));
                }
            }
        }
        return out;
    }

    /**
     * The loader's cache as {@code ldconfig -p} prints it, read once per process (a child process:
     * nothing is loaded here); empty where {@code ldconfig} is missing or fails.
     */
    static Map<String, Path> loaderCache() {
        Map<String, Path> cached = ldconfig;
        if (cached != null) {
            return cached;
        }
        Map<String, Path> found = new LinkedHashMap<>();
        for (String exe : List.of("/sbin/ldconfig", "/usr/sbin/ldconfig", "/usr/bin/ldconfig")) {
            if (!Files.isExecutable(Path.of(exe))) {
                continue;
            }
            try {
                parseLdconfig(ChildOutput.run(List.of(exe, "-p"), 4 << 20, 10).output(), found);
                break;
            } catch (IOException e) {
                // no cache: the folders alone decide
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        ldconfig = Map.copyOf(found);
        return ldconfig;
    }

    /** Lines such as {@code \tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1}; 64-bit entries only. */
    static void parseLdconfig(String output, Map<String, Path> into) {
        for (String line : output.split("\n")) {
            int arrow = line.indexOf(" => ");
            int paren = line.indexOf(" (");
            if (arrow < 0 || paren < 0 || paren > arrow) {
                continue;
            }
            String flags = line.substring(paren, arrow);
            if (!flags.contains("x86-64")) {
                continue;
            }
            into.putIfAbsent(
                    line.substring(0, paren).strip(),
                    Path.of(line.substring(arrow + 4).strip()));
        }
    }
}
