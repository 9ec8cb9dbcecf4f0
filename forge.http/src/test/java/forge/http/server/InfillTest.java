package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.FimTokens;
import forge.api.backend.Vocabulary;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The prompt layout of {@code /infill} ({@link Infill#layout}) and its editor limits ({@link Infill.Limits}). */
class InfillTest {

    static final int BOS = 300;
    static final int PRE = 400;
    static final int SUF = 401;
    static final int MID = 402;
    static final int REP = 403;
    static final int SEP = 404;

    /** One token per character (its code), so layouts read as text. */
    record Chars(boolean addsBos) implements Vocabulary {
        @Override
        public int size() {
            return 500;
        }

        @Override
        public int[] tokenize(String text, boolean addSpecial, boolean parseSpecial) {
            return text.chars().toArray();
        }

        @Override
        public byte[] piece(int token, boolean special) {
            return String.valueOf((char) token).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String detokenize(int[] tokens, boolean removeSpecial, boolean unparseSpecial) {
            return new String(tokens, 0, tokens.length);
        }

        @Override
        public boolean isEndOfGeneration(int token) {
            return false;
        }

        @Override
        public OptionalInt bos() {
            return OptionalInt.of(BOS);
        }

        @Override
        public OptionalInt eos() {
            return OptionalInt.empty();
        }
    }

    static int[] concat(Object... parts) {
        return List.of(parts).stream()
                .flatMapToInt(p -> p instanceof String s ? s.chars() : IntStream.of((Integer) p))
                .toArray();
    }

    static final FimTokens REPO_LEVEL = new FimTokens(PRE, SUF, MID, OptionalInt.of(REP), OptionalInt.of(SEP));
    static final FimTokens PLAIN = new FimTokens(PRE, SUF, MID, OptionalInt.empty(), OptionalInt.empty());

    @Test
    void repositoryLevelPatternWithFileSeparators() {
        int[] out = Infill.layout(
                new Chars(false),
                REPO_LEVEL,
                "ab",
                "cd",
                List.of(new Infill.Chunk("f.py", "x"), new Infill.Chunk("tmp", "y")),
                "p".chars().toArray(),
                512,
                4096);
        assertArrayEquals(
                concat(
                        REP,
                        "myproject\n",
                        SEP,
                        "f.py\n",
                        "x",
                        SEP,
                        "tmp\n",
                        "y",
                        SEP,
                        "filename\n",
                        PRE,
                        "ab",
                        "p",
                        SUF,
                        "cd",
                        MID),
                out);
    }

    @Test
    void withoutSeparatorsChunksAreSnippetsAndBosComesAfterThem() {
        int[] out = Infill.layout(
                new Chars(true), PLAIN, "ab", "cd", List.of(new Infill.Chunk("f.py", "x")), new int[0], 512, 4096);
        assertArrayEquals(concat("\n\n--- snippet ---\n\n", "x", BOS, PRE, "ab", SUF, "cd", MID), out);
    }

    @Test
    void prefixSuffixAndExtraAreCutAsLlamaServerCutsThem() {
        // batch 16: the prefix keeps its last 12 tokens, the suffix its first 16/4 - 2 - |prompt| = 1;
        // the extra context its last slot - batch + 2 = 4 tokens.
        int[] out = Infill.layout(
                new Chars(false),
                PLAIN,
                "0123456789abcdefgh",
                "XYZ",
                List.of(new Infill.Chunk("f", "uvwxyz")),
                "p".chars().toArray(),
                16,
                18);
        assertArrayEquals(concat("wxyz", PRE, "6789abcdefgh", "p", SUF, "X", MID), out);
    }

    @Test
    void pastTheTimeLimitANewLineEndsGeneration() {
        long[] now = {0};
        Infill.Limits limits = new Infill.Limits(100, 0, () -> now[0]);
        assertFalse(limits.accept("a").stop());
        now[0] = 50_000_000; // 50 ms
        assertFalse(limits.accept("\n").stop(), "a new line within the limit goes on");
        now[0] = 200_000_000; // 200 ms
        assertFalse(limits.accept("b").stop(), "past the limit, only a new line stops");
        Infill.Cut cut = limits.accept("c\n");
        assertTrue(cut.stop());
        assertEquals("c\n", cut.text());
        assertEquals("a\nbc\n", limits.text());
    }

    @Test
    void aLineIndentedLessThanNIndentIsCut() {
        Infill.Limits limits = new Infill.Limits(0, 4, () -> 0);
        assertFalse(limits.accept("x = 1\n    ").stop());
        assertFalse(limits.accept("y = 2\n  ").stop(), "indented enough");
        Infill.Cut cut = limits.accept("  z");
        assertFalse(cut.stop(), "four spaces: enough");
        Infill.Cut last = limits.accept("\nreturn");
        assertTrue(last.stop());
        assertEquals("\n", last.text(), "the short line is cut before its first character");
        assertEquals("x = 1\n    y = 2\n    z\n", limits.text());
    }
}
