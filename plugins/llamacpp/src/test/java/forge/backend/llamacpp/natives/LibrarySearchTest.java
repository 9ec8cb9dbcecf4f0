package forge.backend.llamacpp.natives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LibrarySearchTest {

    @Test
    void readsTheLoadersCacheKeepingOnly64BitEntries() {
        Map<String, Path> cache = new LinkedHashMap<>();
        LibrarySearch.parseLdconfig("""
                1234 libs found in cache `/etc/ld.so.cache'
                \tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1
                \tlibcuda.so.1 (libc6) => /usr/lib/i386-linux-gnu/libcuda.so.1
                \tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1
                """, cache);
        assertEquals(
                Map.of(
                        "libcuda.so.1",
                        Path.of("/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
                        "libz.so.1",
                        Path.of("/lib/x86_64-linux-gnu/libz.so.1")),
                cache);
    }

    @Test
    void foldersComeFirstInOrderThenTheCache(@TempDir Path dir) throws Exception {
        Path a = Files.createDirectories(dir.resolve("a"));
        Path b = Files.createDirectories(dir.resolve("b"));
        Files.writeString(b.resolve("libx.so.1"), "b");
        Path cached = Files.writeString(dir.resolve("libx-cached.so.1"), "c");
        LibrarySearch search = new LibrarySearch(List.of(a, b), Map.of("libx.so.1", cached, "liby.so.2", cached));
        assertEquals(Optional.of(b.resolve("libx.so.1")), search.find("libx.so.1"));
        Files.writeString(a.resolve("libx.so.1"), "a");
        assertEquals(
                Optional.of(a.resolve("libx.so.1")), search.before(List.of()).find("libx.so.1"));
        assertEquals(Optional.of(cached), search.find("liby.so.2"));
        assertEquals(Optional.empty(), search.find("libz.so.3"));
        assertEquals(List.of(Path.of("/x"), Path.of("/y")), LibrarySearch.pathList(":/x::/y:"));
    }

    @Test
    void theSystemSearchFindsLibc() {
        assertTrue(LibrarySearch.system(Map.of()).find("libc.so.6").isPresent());
    }
}
