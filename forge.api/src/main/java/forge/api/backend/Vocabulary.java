package forge.api.backend;

import java.nio.charset.StandardCharsets;
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

    /**
     * The tokenizer's kind (llama.cpp's {@code llama_vocab_type}: SentencePiece, BPE, WordPiece...),
     * as a name or number that is equal for equal kinds; empty when the backend does not say.
     * A draft model is only used beside a target whose vocabulary is of the same kind.
     */
    default String type() {
        return "";
    }

    /** Whether tokenizing with special tokens adds {@link #bos()} in front. */
    default boolean addsBos() {
        return false;
    }

    /** Whether tokenizing with special tokens adds {@link #eos()} at the end. */
    default boolean addsEos() {
        return false;
    }

    /**
     * A token's text as the vocabulary stores it (llama.cpp's {@code llama_vocab_get_text}, before
     * any rendering), for comparing two vocabularies token by token. By default its rendered bytes.
     */
    default String text(int token) {
        return new String(piece(token, true), StandardCharsets.ISO_8859_1);
    }

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

    /** Whether the model's inputs put a separator between paired texts (BERT-style rerankers). */
    default boolean addsSep() {
        return false;
    }
}
