package forge.backend.llamacpp;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import forge.api.BackendException;
import forge.api.backend.FimTokens;
import forge.api.backend.Vocabulary;
import forge.backend.llamacpp.ffm.Llama;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A model's {@code llama_vocab}. Thread-safe: llama.cpp's tokenizer API is, and the scratch memory
 * of each call lives in a confined arena of that call. The vocabulary pointer is attached to the
 * model's shared arena, so a call after the model is closed fails cleanly instead of reading
 * freed memory.
 *
 * <p>Every token id is range-checked in Java first: llama.cpp looks tokens up with
 * {@code std::vector::at}, whose exception would abort the process.
 *
 * <p>{@link #piece} is on the hot path (incremental detokenization, one call per generated token),
 * so each token's bytes are computed once and cached: after warm-up a piece is an array copy, no
 * native call and no native allocation.
 */
final class LlamaVocabulary implements Vocabulary {
    private static final int LLAMA_TOKEN_NULL = -1;

    private final LlamaModel model;
    private final MemorySegment vocab;
    private final int size;
    private final int bos;
    private final int eos;
    private final int eot;
    private final int sep;
    private final Optional<FimTokens> fim;
    private final boolean addsBos;
    private final boolean addsEos;
    private final boolean addsSep;
    private final AtomicReferenceArray<byte[]> pieces;
    private final AtomicReferenceArray<byte[]> specialPieces;

    LlamaVocabulary(LlamaModel model, MemorySegment vocab) {
        this.model = model;
        this.vocab = vocab;
        this.size = Llama.llama_vocab_n_tokens(vocab);
        this.bos = Llama.llama_vocab_bos(vocab);
        this.eos = Llama.llama_vocab_eos(vocab);
        this.eot = Llama.llama_vocab_eot(vocab);
        this.sep = Llama.llama_vocab_sep(vocab);
        this.fim = fim(vocab);
        this.addsBos = Llama.llama_vocab_get_add_bos(vocab);
        this.addsEos = Llama.llama_vocab_get_add_eos(vocab);
        this.addsSep = Llama.llama_vocab_get_add_sep(vocab);
        this.pieces = new AtomicReferenceArray<>(size);
        this.specialPieces = new AtomicReferenceArray<>(size);
    }

    @Override
    public int size() {
        return size;
    }

    // enum llama_vocab_type
    private static final int LLAMA_VOCAB_TYPE_SPM = 1;
    private static final int LLAMA_VOCAB_TYPE_UGM = 4;

    /**
     * Refuses a SentencePiece (SPM) or Unigram (UGM) vocabulary that cannot spell every byte. Their
     * tokenizers fall back to one token per byte for text the vocabulary has no piece for, and look
     * that token up with {@code token_to_id.at}: a byte with neither a {@code <0xXX>} token nor a
     * one-byte token throws inside {@code llama_tokenize}, which ends the JVM. Real models have all
     * 256; a damaged or crafted file may not.
     *
     * @throws BackendException naming the first byte missing
     */
    void checkByteFallback(String file) {
        int type = Llama.llama_vocab_type(vocab);
        if (type != LLAMA_VOCAB_TYPE_SPM && type != LLAMA_VOCAB_TYPE_UGM) {
            return;
        }
        Set<String> texts = new HashSet<>(size * 2);
        for (int t = 0; t < size; t++) {
            MemorySegment text = Llama.llama_vocab_get_text(vocab, t);
            if (!text.equals(MemorySegment.NULL)) {
                // Latin-1 keeps each byte as one char, so raw byte tokens compare as bytes.
                texts.add(text.reinterpret(Long.MAX_VALUE).getString(0, StandardCharsets.ISO_8859_1));
            }
        }
        for (int b = 0; b < 256; b++) {
            if (!texts.contains(String.format("<0x%02X>", b)) && !texts.contains(String.valueOf((char) b))) {
                throw new BackendException(
                        file + ": its " + (type == LLAMA_VOCAB_TYPE_SPM ? "SentencePiece" : "Unigram")
                                + " vocabulary has no token for the byte " + String.format("0x%02X", b)
                                + ", so some text could not be tokenized (llama.cpp would abort); the file is damaged or incomplete");
            }
        }
    }

    /** The {@code llama_vocab *}, attached to the model's arena. */
    MemorySegment segment() {
        return vocab;
    }

    @Override
    public int[] tokenize(String text, boolean addSpecial, boolean parseSpecial) {
        model.ensureOpen();
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment in = call.allocate(utf8.length + 1L);
            MemorySegment.copy(utf8, 0, in, JAVA_BYTE, 0, utf8.length);
            // Byte-level vocabularies give at most one token per byte; a BOS/EOS and SPM's space prefix add a few.
            int max = utf8.length + 8;
            MemorySegment out = call.allocate(JAVA_INT, max);
            int n = Llama.llama_tokenize(vocab, in, utf8.length, out, max, addSpecial, parseSpecial);
            if (n < 0 && n != Integer.MIN_VALUE) {
                max = -n;
                out = call.allocate(JAVA_INT, max);
                n = Llama.llama_tokenize(vocab, in, utf8.length, out, max, addSpecial, parseSpecial);
            }
            if (n < 0) {
                throw new BackendException(
                        "cannot tokenize a text of " + utf8.length + " bytes (llama_tokenize returned " + n + ")");
            }
            return out.asSlice(0, n * 4L).toArray(JAVA_INT);
        } catch (IllegalStateException e) {
            throw closed(e);
        }
    }

    @Override
    public byte[] piece(int token, boolean special) {
        checkToken(token);
        AtomicReferenceArray<byte[]> cache = special ? specialPieces : pieces;
        byte[] bytes = cache.get(token);
        if (bytes == null) {
            bytes = nativePiece(token, special);
            cache.set(token, bytes);
        }
        return bytes.clone();
    }

    private byte[] nativePiece(int token, boolean special) {
        model.ensureOpen();
        try (Arena call = Arena.ofConfined()) {
            int length = 64;
            MemorySegment buf = call.allocate(length);
            int n = Llama.llama_token_to_piece(vocab, token, buf, length, 0, special);
            if (n < 0) {
                // The buffer was short by -n: retry with exactly what it needs.
                length = -n;
                buf = call.allocate(length);
                n = Llama.llama_token_to_piece(vocab, token, buf, length, 0, special);
            }
            if (n < 0) {
                throw new BackendException("llama_token_to_piece failed for token " + token + " (" + n + ")");
            }
            return buf.asSlice(0, n).toArray(JAVA_BYTE);
        } catch (IllegalStateException e) {
            throw closed(e);
        }
    }

    @Override
    public String detokenize(int[] tokens, boolean removeSpecial, boolean unparseSpecial) {
        for (int token : tokens) {
            checkToken(token);
        }
        model.ensureOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment in = call.allocateFrom(JAVA_INT, tokens);
            int max = Math.max(16, tokens.length * 8);
            MemorySegment out = call.allocate(max);
            int n = Llama.llama_detokenize(vocab, in, tokens.length, out, max, removeSpecial, unparseSpecial);
            if (n < 0 && n != Integer.MIN_VALUE) {
                max = -n;
                out = call.allocate(max);
                n = Llama.llama_detokenize(vocab, in, tokens.length, out, max, removeSpecial, unparseSpecial);
            }
            if (n < 0) {
                throw new BackendException(
                        "cannot detokenize " + tokens.length + " tokens (llama_detokenize returned " + n + ")");
            }
            return new String(out.asSlice(0, n).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
        } catch (IllegalStateException e) {
            throw closed(e);
        }
    }

    @Override
    public boolean isEndOfGeneration(int token) {
        if (token < 0 || token >= size) {
            return false;
        }
        model.ensureOpen();
        try {
            return Llama.llama_vocab_is_eog(vocab, token);
        } catch (IllegalStateException e) {
            throw closed(e);
        }
    }

    @Override
    public String type() {
        model.ensureOpen();
        return Integer.toString(Llama.llama_vocab_type(vocab));
    }

    /** The token's stored text, its bytes as Latin-1 characters (so that raw byte tokens compare as bytes). */
    @Override
    public String text(int token) {
        checkToken(token);
        model.ensureOpen();
        MemorySegment text = Llama.llama_vocab_get_text(vocab, token);
        return text.equals(MemorySegment.NULL)
                ? ""
                : text.reinterpret(Long.MAX_VALUE).getString(0, StandardCharsets.ISO_8859_1);
    }

    @Override
    public OptionalInt bos() {
        return bos == LLAMA_TOKEN_NULL ? OptionalInt.empty() : OptionalInt.of(bos);
    }

    @Override
    public OptionalInt eos() {
        return eos == LLAMA_TOKEN_NULL ? OptionalInt.empty() : OptionalInt.of(eos);
    }

    @Override
    public OptionalInt sep() {
        return sep == LLAMA_TOKEN_NULL ? OptionalInt.empty() : OptionalInt.of(sep);
    }

    @Override
    public Optional<FimTokens> fim() {
        return fim;
    }

    @Override
    public boolean addsBos() {
        return addsBos;
    }

    @Override
    public boolean addsEos() {
        return addsEos;
    }

    @Override
    public boolean addsSep() {
        return addsSep;
    }

    /**
     * llama.cpp's FIM tokens: the ids the file names ({@code tokenizer.ggml.fim_pre_token_id}, ...)
     * or, where it names none, the ones its loader found by text ({@code <|fim_prefix|>},
     * {@code <fim-prefix>}, {@code <PRE>}, ...). Infill needs all of prefix, suffix and middle.
     */
    private static Optional<FimTokens> fim(MemorySegment vocab) {
        int pre = Llama.llama_vocab_fim_pre(vocab);
        int suf = Llama.llama_vocab_fim_suf(vocab);
        int mid = Llama.llama_vocab_fim_mid(vocab);
        if (pre == LLAMA_TOKEN_NULL || suf == LLAMA_TOKEN_NULL || mid == LLAMA_TOKEN_NULL) {
            return Optional.empty();
        }
        return Optional.of(new FimTokens(
                pre, suf, mid, present(Llama.llama_vocab_fim_rep(vocab)), present(Llama.llama_vocab_fim_sep(vocab))));
    }

    private static OptionalInt present(int token) {
        return token == LLAMA_TOKEN_NULL ? OptionalInt.empty() : OptionalInt.of(token);
    }

    /** The end-of-turn token, when the model has one. */
    public OptionalInt eot() {
        return eot == LLAMA_TOKEN_NULL ? OptionalInt.empty() : OptionalInt.of(eot);
    }

    void checkToken(int token) {
        if (token < 0 || token >= size) {
            throw new BackendException("token " + token + " is out of range: the vocabulary has " + size + " tokens");
        }
    }

    private BackendException closed(IllegalStateException e) {
        return new BackendException("model " + model.path() + " is closed", e);
    }
}
