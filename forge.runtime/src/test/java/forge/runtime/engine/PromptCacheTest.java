package forge.runtime.engine;

import static forge.runtime.engine.SlotViews.tokens;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.KvCacheType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the host prompt cache saves, which entry a prompt restores, and what it evicts, on plain values. */
class PromptCacheTest {

    private static final PromptCache.Key KEY =
            new PromptCache.Key("/m.gguf", 10, 20, "00", 512, 2, KvCacheType.F16, "AUTO");
    private static final PromptCache.Key OTHER =
            new PromptCache.Key("/m.gguf", 10, 20, "00", 512, 2, KvCacheType.Q8_0, "ON");

    private static PromptCache.Entry entry(PromptCache.Key key, int stateBytes, int... tokens) {
        return new PromptCache.Entry(key, tokens, new byte[stateBytes]);
    }

    @TempDir
    Path dir;

    /**
     * A state holding an image's cells is its projector's encoding of it, while its tokens name the
     * image only by its hash: the key names the projector, so another projector (or none) restores
     * nothing of it.
     */
    @Test
    void theKeyOfAModelServedWithAProjectorNamesTheProjector() throws IOException {
        Path model = Files.write(dir.resolve("m.gguf"), new byte[] {1, 2, 3});
        Path a = Files.write(dir.resolve("mmproj-a.gguf"), new byte[] {4, 5});
        Path b = Files.write(dir.resolve("mmproj-b.gguf"), new byte[] {6, 7});
        EngineConfig config = EngineConfig.defaults();
        PromptCache.Key none = PromptCache.Key.of(model, config);
        PromptCache.Key withA = PromptCache.Key.of(model, Optional.of(a), config);
        assertEquals(none, PromptCache.Key.of(model, Optional.empty(), config));
        assertEquals(withA, PromptCache.Key.of(model, Optional.of(a), config));
        assertNotEquals(none, withA);
        assertNotEquals(withA, PromptCache.Key.of(model, Optional.of(b), config));
        assertEquals(none.model(), withA.model(), "the entries are still the model's, on disk too");
    }

    @Test
    void aSlotIsSavedWhenItIsLongEnoughAndMostOfItGoes() {
        assertTrue(PromptCache.worthSaving(PromptCache.MIN_TOKENS, 0));
        assertFalse(PromptCache.worthSaving(PromptCache.MIN_TOKENS - 1, 0), "short: faster to prefill again");
        assertTrue(PromptCache.worthSaving(100, 49));
        assertFalse(PromptCache.worthSaving(100, 50), "half kept: the slot itself keeps most of it");
    }

    @Test
    void theLongestPrefixOverEveryEntryWinsNotOnlyAnExactMatch() {
        PromptCache cache = new PromptCache(1000);
        PromptCache.Entry abh = entry(KEY, 10, 1, 2, 8);
        PromptCache.Entry abcx = entry(KEY, 10, 1, 2, 3, 9);
        cache.put(abh);
        cache.put(abcx);
        assertEquals(new PromptCache.Match(abcx, 3), cache.longest(KEY, tokens(1, 2, 3, 4), 3));
        assertEquals(
                new PromptCache.Match(abh, 3), cache.longest(KEY, tokens(1, 2, 8, 4, 4), 4), "the older entry too");
        assertEquals(new PromptCache.Match(abcx, 2), cache.longest(KEY, tokens(1, 2, 3), 2), "only the usable tokens");
    }

    @Test
    void anEntryThatALongerOneStartsWithGoes() {
        PromptCache cache = new PromptCache(1000);
        cache.put(entry(KEY, 10, 1, 2));
        PromptCache.Entry longer = entry(KEY, 10, 1, 2, 3);
        cache.put(longer);
        assertEquals(List.of(longer), cache.entries());
        assertFalse(cache.put(entry(KEY, 10, 1, 2)), "held already");
        assertTrue(cache.holds(KEY, tokens(1, 2, 7), 2));
        assertFalse(cache.holds(OTHER, tokens(1, 2, 7), 2));
    }

    @Test
    void entriesOfAnotherKeyAreNeverOffered() {
        PromptCache cache = new PromptCache(1000);
        cache.put(entry(OTHER, 10, 1, 2, 3));
        assertNull(cache.longest(KEY, tokens(1, 2, 3, 4), 3));
        assertEquals(1, cache.longest(OTHER, tokens(1, 5), 1).tokens());
    }

    @Test
    void theLeastRecentlyUsedGoFirstUntilTheRestFit() {
        PromptCache cache = new PromptCache(3 * (100 + 8));
        PromptCache.Entry a = entry(KEY, 100, 1, 1);
        PromptCache.Entry b = entry(KEY, 100, 2, 2);
        PromptCache.Entry c = entry(KEY, 100, 3, 3);
        cache.put(a);
        cache.put(b);
        cache.put(c);
        cache.touch(a);
        PromptCache.Entry d = entry(KEY, 100, 4, 4);
        cache.put(d);
        assertEquals(List.of(c, a, d), cache.entries(), "b was used least recently");
        assertEquals(3 * 108, cache.bytes());
        assertFalse(cache.put(entry(KEY, 1000, 5, 5)), "larger than the whole cache");
        assertFalse(PromptCache.OFF.put(entry(KEY, 1, 5)), "--cache-ram 0 keeps nothing");
    }

    @Test
    void listenersHearOfEveryEntryThatComesAndGoes() {
        PromptCache cache = new PromptCache(2 * 108);
        List<String> heard = new ArrayList<>();
        cache.listen(new PromptCache.Listener() {
            @Override
            public void added(PromptCache.Entry e) {
                heard.add("+" + e.tokens()[0]);
            }

            @Override
            public void removed(PromptCache.Entry e) {
                heard.add("-" + e.tokens()[0]);
            }
        });
        cache.put(entry(KEY, 100, 1, 1));
        cache.put(entry(KEY, 100, 2, 2));
        cache.put(entry(KEY, 100, 3, 3));
        assertEquals(List.of("+1", "+2", "+3", "-1"), heard);
    }

    /** On random entries: the match is the longest prefix of the key's entries, the limit always holds. */
    @Test
    void randomEntriesKeepTheRules() {
        Random random = new Random(16);
        PromptCache cache = new PromptCache(4000);
        for (int run = 0; run < 3000; run++) {
            PromptCache.Key key = random.nextBoolean() ? KEY : OTHER;
            int[] tokens = SlotViews.sequence(random, 12);
            if (tokens.length > 0) {
                cache.put(entry(key, random.nextInt(600), tokens));
            }
            assertTrue(cache.bytes() <= cache.limitBytes());
            assertEquals(
                    cache.entries().stream().mapToLong(PromptCache.Entry::bytes).sum(), cache.bytes());
            int[] prompt = SlotViews.sequence(random, 12);
            int usable = Math.max(0, prompt.length - 1);
            int best = 0;
            for (PromptCache.Entry e : cache.entries()) {
                if (e.key().equals(KEY)) {
                    best = Math.max(best, SlotView.commonPrefix(e.tokens(), e.tokens().length, prompt, usable));
                }
            }
            PromptCache.Match m = cache.longest(KEY, prompt, usable);
            assertEquals(best, m == null ? 0 : m.tokens(), "run " + run + ": " + Arrays.toString(prompt));
            if (m != null) {
                assertSame(KEY, m.entry().key());
            }
        }
    }
}
