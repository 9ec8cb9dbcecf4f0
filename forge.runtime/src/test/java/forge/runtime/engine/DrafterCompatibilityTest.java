package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.backend.Vocabulary;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The draft model's vocabulary check, as llama.cpp's {@code common_speculative_are_compatible}. */
class DrafterCompatibilityTest {

    /** {@link FakeVocabulary} with a type, BOS handling, size and one token's text of its own. */
    private static Vocabulary vocab(String type, boolean addsBos, int size, int changed, String text) {
        FakeVocabulary base = new FakeVocabulary();
        return new Vocabulary() {
            public int size() {
                return size;
            }

            public int[] tokenize(String t, boolean addSpecial, boolean parseSpecial) {
                return base.tokenize(t, addSpecial, parseSpecial);
            }

            public byte[] piece(int token, boolean special) {
                return token < FakeVocabulary.SIZE ? base.piece(token, special) : new byte[] {'x'};
            }

            public String detokenize(int[] tokens, boolean removeSpecial, boolean unparseSpecial) {
                return base.detokenize(tokens, removeSpecial, unparseSpecial);
            }

            public boolean isEndOfGeneration(int token) {
                return base.isEndOfGeneration(token);
            }

            public OptionalInt bos() {
                return base.bos();
            }

            public OptionalInt eos() {
                return base.eos();
            }

            public String type() {
                return type;
            }

            public boolean addsBos() {
                return addsBos;
            }

            public String text(int token) {
                return token == changed ? text : "t" + token;
            }
        };
    }

    private static final Vocabulary TARGET = vocab("2", true, 1000, -1, "");

    @Test
    void aVocabularyLikeTheTargetsIsCompatibleEvenWithAFewTokensMoreOrOtherControlTokens() {
        assertEquals(Optional.empty(), Drafter.incompatibility(TARGET, vocab("2", true, 1000, -1, "")));
        assertEquals(Optional.empty(), Drafter.incompatibility(TARGET, vocab("2", true, 1128, -1, "")));
        // Ids below 5 are not compared (llama.cpp's SPEC_VOCAB_CHECK_START_TOKEN_ID).
        assertEquals(Optional.empty(), Drafter.incompatibility(TARGET, vocab("2", true, 1000, 4, "<other>")));
    }

    @Test
    void eachDifferenceIsRefusedWithItsReason() {
        assertTrue(Drafter.incompatibility(TARGET, vocab("1", true, 1000, -1, ""))
                .orElseThrow()
                .contains("vocabulary type"));
        assertTrue(Drafter.incompatibility(TARGET, vocab("2", false, 1000, -1, ""))
                .orElseThrow()
                .contains("beginning-of-sequence"));
        assertTrue(Drafter.incompatibility(TARGET, vocab("2", true, 1129, -1, ""))
                .orElseThrow()
                .contains("more than 128 apart"));
        String text = Drafter.incompatibility(TARGET, vocab("2", true, 1000, 700, "other"))
                .orElseThrow();
        assertTrue(text.contains("token 700 is 'other' where the target's is 't700'"), text);
    }
}
