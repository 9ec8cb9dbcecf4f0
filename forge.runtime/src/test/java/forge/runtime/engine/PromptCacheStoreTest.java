package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.KvCacheType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The prompt cache on disk: what is written, what is loaded back, and what is deleted unread. */
class PromptCacheStoreTest {

    private static final PromptCache.Key KEY =
            new PromptCache.Key("/models/a.gguf", 100, 200, "cafe", 512, 1, KvCacheType.F16, "AUTO");

    @TempDir
    Path dir;

    private static PromptCache.Entry entry(PromptCache.Key key, int first) {
        int[] tokens = new int[40];
        Arrays.fill(tokens, first);
        byte[] state = new byte[300];
        Arrays.fill(state, (byte) first);
        return new PromptCache.Entry(key, tokens, state);
    }

    private List<Path> files() throws IOException {
        try (var s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    @Test
    void aFileHoldsItsEntryWhole() {
        PromptCache.Entry e = entry(KEY, 7);
        PromptCache.Entry back = PromptCacheStore.read(PromptCacheStore.write(e));
        assertEquals(KEY, back.key());
        assertArrayEquals(e.tokens(), back.tokens());
        assertArrayEquals(e.state(), back.state());
    }

    @Test
    void anyDamageIsSeen() {
        byte[] file = PromptCacheStore.write(entry(KEY, 7));
        for (int i = 0; i < file.length; i += 7) {
            byte[] damaged = file.clone();
            damaged[i] ^= 0x10;
            assertThrows(IllegalArgumentException.class, () -> PromptCacheStore.read(damaged), "byte " + i);
        }
        for (int n = 0; n < file.length; n += 13) {
            byte[] truncated = Arrays.copyOf(file, n);
            assertThrows(IllegalArgumentException.class, () -> PromptCacheStore.read(truncated), n + " bytes");
        }
    }

    @Test
    void entriesAreWrittenOffTheCallersThreadAndDeletedWhenEvicted() throws IOException {
        PromptCache cache = new PromptCache(2 * entry(KEY, 1).bytes());
        try (PromptCacheStore _ = new PromptCacheStore(dir, cache)) {
            cache.put(entry(KEY, 1));
            cache.put(entry(KEY, 2));
            cache.put(entry(KEY, 3)); // evicts 1
        }
        assertEquals(2, files().size());
        PromptCache again = new PromptCache(1 << 20);
        try (PromptCacheStore store = new PromptCacheStore(dir, again)) {
            assertEquals(2, store.load(KEY));
        }
        assertEquals(
                List.of(2, 3),
                again.entries().stream().map(e -> e.tokens()[0]).sorted().toList());
    }

    @Test
    void damagedFilesAndThoseOfTheModelWithOtherSettingsOrIdentityAreDeletedUnread() throws IOException {
        PromptCache.Key otherSettings =
                new PromptCache.Key(KEY.model(), 100, 200, "cafe", 256, 2, KvCacheType.F16, "AUTO");
        PromptCache.Key replacedFile =
                new PromptCache.Key(KEY.model(), 100, 999, "cafe", 512, 1, KvCacheType.F16, "AUTO");
        PromptCache.Key otherModel =
                new PromptCache.Key("/models/b.gguf", 1, 2, "beef", 512, 1, KvCacheType.F16, "AUTO");
        PromptCache writing = new PromptCache(1 << 20);
        try (PromptCacheStore _ = new PromptCacheStore(dir, writing)) {
            writing.put(entry(KEY, 1));
            writing.put(entry(KEY, 2));
            writing.put(entry(otherSettings, 3));
            writing.put(entry(replacedFile, 4));
            writing.put(entry(otherModel, 5));
        }
        Path good = dir.resolve(PromptCacheStore.name(entry(KEY, 1)));
        Path corrupt = dir.resolve(PromptCacheStore.name(entry(KEY, 2)));
        byte[] b = Files.readAllBytes(corrupt);
        b[b.length / 2] ^= 1;
        Files.write(corrupt, b);
        Path truncated = dir.resolve("0123" + PromptCacheStore.SUFFIX);
        Files.write(truncated, Arrays.copyOf(Files.readAllBytes(good), 50));

        PromptCache cache = new PromptCache(1 << 20);
        try (PromptCacheStore store = new PromptCacheStore(dir, cache)) {
            assertEquals(1, store.load(KEY));
        }
        assertEquals(1, cache.size());
        assertEquals(1, cache.entries().getFirst().tokens()[0]);
        assertEquals(
                List.of(good, dir.resolve(PromptCacheStore.name(entry(otherModel, 5)))).stream()
                        .sorted()
                        .toList(),
                files(),
                "the sound file and another model's stay; the others are gone");
        assertFalse(Files.exists(corrupt));
        assertFalse(Files.exists(truncated));
    }

    @Test
    void aCacheOfTheSameKeyMadeAfterARestartStartsFromTheFiles() throws IOException {
        PromptCache first = new PromptCache(1 << 20);
        try (PromptCacheStore _ = new PromptCacheStore(dir, first)) {
            first.put(entry(KEY, 9));
        }
        PromptCache second = new PromptCache(1 << 20);
        try (PromptCacheStore store = new PromptCacheStore(dir, second)) {
            store.load(KEY);
            PromptCache.Match m = second.longest(KEY, entry(KEY, 9).tokens(), 39);
            assertEquals(39, m.tokens());
        }
        assertTrue(
                Files.exists(dir.resolve(PromptCacheStore.name(entry(KEY, 9)))),
                "a loaded entry is not written again, nor lost");
    }
}
