package forge.api.backend;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * A model's tokenizer. Thread-safe: the vocabulary is read-only once loaded.
 */
public interface Vocabulary {

    /** The number of tokens. */
    int size();

    /**
     * Tokenizes text.
     *
     * @param addSpecial   add the BOS/EOS tokens the model is configured to add
     * @param parseSpecial treat special-token text such as {@code <|im_start|>} as the token itself
     */
    int[] tokenize(String text, boolean addSpecial, boolean parseSpecial);

    /**
     * The raw bytes of one token. A multi-byte character can be split across tokens, so the
     * bytes are not always valid UTF-8 on their own.
     *
     * @param special render special tokens as their text (otherwise they render as nothing)
     */
    byte[] piece(int token, boolean special);

    /** Detokenizes a whole sequence to text. */
    String detokenize(int[] tokens, boolean removeSpecial, boolean unparseSpecial);

    /** True for every end-of-generation token (EOS, EOT, and the family's end-of-turn tokens). */
    boolean isEndOfGeneration(int token);

    /** The beginning-of-sequence token, when the model has one. */
    OptionalInt bos();

    /** The end-of-sequence token, when the model has one. */
    OptionalInt eos();

    /** The id of the token whose text is exactly {@code text} (a special token), if there is one. */
    default OptionalInt tokenOf(String text) {
        int[] ids = tokenize(text, false, true);
        return ids.length == 1 ? OptionalInt.of(ids[0]) : OptionalInt.empty();
    }

    /**
     * The fill-in-the-middle tokens, when the vocabulary has the prefix, suffix and middle ones
     * (what {@code /infill} and a completion's {@code suffix} need). A backend that cannot tell
     * answers empty.
     */
    default Optional<FimTokens> fim() {
        return Optional.empty();
    }

    /** The separator token ({@code [SEP]} of BERT-style vocabularies), when the model has one. */
    default OptionalInt sep() {
        return OptionalInt.empty();
    }

    /** Whether {@link #tokenize} with {@code addSpecial} puts the BOS token first. */
    default boolean addsBos() {
        return false;
    }

    /** Whether {@link #tokenize} with {@code addSpecial} puts the EOS token last. */
    default boolean addsEos() {
        return false;
    }

    /** Whether the model's inputs put a separator between paired texts (BERT-style rerankers). */
    default boolean addsSep() {
        return false;
    }
}
