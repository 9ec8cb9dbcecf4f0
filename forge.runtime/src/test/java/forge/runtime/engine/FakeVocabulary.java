package forge.runtime.engine;

import forge.api.backend.Vocabulary;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;

/**
 * A small vocabulary for engine tests: BOS, EOS, an end-of-turn token, the two bytes of "é" as two
 * tokens, the letters, space and full stop. Its pieces are fixed arrays, so rendering allocates
 * nothing and tests can assert exact text.
 */
final class FakeVocabulary implements Vocabulary {

    static final int BOS = 0;
    static final int EOS = 1;
    /** {@code <|end|>}: a special token the vocabulary does not treat as end of generation (a template's end of turn). */
    static final int END_OF_TURN = 2;
    /** The first and second byte of "é" (C3 A9): text only once both are out. */
    static final int E_ACUTE_1 = 3;

    static final int E_ACUTE_2 = 4;
    /** 'a' to 'z' are {@code A + 0} to {@code A + 25}. */
    static final int A = 10;

    static final int SPACE = 36;
    static final int DOT = 37;
    static final int SIZE = 64;

    private static final byte[][] PIECES = new byte[SIZE][];
    private static final byte[][] SPECIAL = new byte[SIZE][];

    static {
        for (int t = 0; t < SIZE; t++) {
            PIECES[t] = "?".getBytes(StandardCharsets.UTF_8);
        }
        PIECES[BOS] = new byte[0];
        PIECES[EOS] = new byte[0];
        PIECES[END_OF_TURN] = new byte[0];
        PIECES[E_ACUTE_1] = new byte[] {(byte) 0xC3};
        PIECES[E_ACUTE_2] = new byte[] {(byte) 0xA9};
        for (int c = 0; c < 26; c++) {
            PIECES[A + c] = new byte[] {(byte) ('a' + c)};
        }
        PIECES[SPACE] = new byte[] {' '};
        PIECES[DOT] = new byte[] {'.'};
        System.arraycopy(PIECES, 0, SPECIAL, 0, SIZE);
        SPECIAL[BOS] = "<s>".getBytes(StandardCharsets.UTF_8);
        SPECIAL[EOS] = "</s>".getBytes(StandardCharsets.UTF_8);
        SPECIAL[END_OF_TURN] = "<|end|>".getBytes(StandardCharsets.UTF_8);
    }

    /** The tokens of a text of lower-case letters, spaces and full stops (one token each). */
    static int[] ids(String text) {
        int[] ids = new int[text.length()];
        for (int i = 0; i < ids.length; i++) {
            char c = text.charAt(i);
            ids[i] = c == ' ' ? SPACE : c == '.' ? DOT : c == 'é' ? E_ACUTE_1 : A + (c - 'a');
            if (c != ' ' && c != '.' && (c < 'a' || c > 'z')) {
                throw new IllegalArgumentException("no single token for '" + c + "'");
            }
        }
        return ids;
    }

    /** BOS, then the tokens of {@code text}. */
    static int[] prompt(String text) {
        int[] ids = ids(text);
        int[] prompt = new int[ids.length + 1];
        prompt[0] = BOS;
        System.arraycopy(ids, 0, prompt, 1, ids.length);
        return prompt;
    }

    @Override
    public int size() {
        return SIZE;
    }

    @Override
    public int[] tokenize(String text, boolean addSpecial, boolean parseSpecial) {
        return addSpecial ? prompt(text) : ids(text);
    }

    @Override
    public byte[] piece(int token, boolean special) {
        return (special ? SPECIAL : PIECES)[token];
    }

    @Override
    public String detokenize(int[] tokens, boolean removeSpecial, boolean unparseSpecial) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int t : tokens) {
            out.writeBytes(piece(t, unparseSpecial));
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Override
    public boolean isEndOfGeneration(int token) {
        return token == EOS;
    }

    @Override
    public OptionalInt bos() {
        return OptionalInt.of(BOS);
    }

    @Override
    public OptionalInt eos() {
        return OptionalInt.of(EOS);
    }
}
