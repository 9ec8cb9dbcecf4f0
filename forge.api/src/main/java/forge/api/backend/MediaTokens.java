package forge.api.backend;

import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * A prompt with media, split by a model's projector into text and media chunks
 * ({@link LoadedModel#media}), as the engine sees it: one token list in which each media chunk is
 * a run of placeholder ids, one per embedding it decodes into, so that everything that compares
 * prompts by their tokens (a slot's prefix reuse, the host prompt cache and its disk entries)
 * compares an image by its content hash, as llama-server's {@code server_tokens} compares media
 * chunks by their ids. Placeholders are negative, so no vocabulary id is ever one; equal images
 * (equal SHA-256) give equal runs, and different images differ at every position of their runs
 * (each position carries 30 bits of the hash, the eight words in turn).
 *
 * <p>Native lifecycle: the chunks (preprocessed pixels) are native memory, released when the last
 * reference is closed. The maker holds the first reference; the engine {@link #retain}s one for
 * each request it admits and closes it when that request ends (its {@code Done} or
 * {@code Failed} event), so a request thread that stops waiting never frees what the engine
 * thread is still encoding.
 */
public interface MediaTokens extends AutoCloseable {

    /**
     * One media chunk: its placeholder ids are {@code tokens()[start .. start + length)}.
     *
     * @param id        the SHA-256 (lower-case hex) of the image's bytes
     * @param start     the index of its first placeholder in {@link #tokens()}
     * @param length    how many embeddings it takes: KV cells, and prompt tokens in usage
     * @param audio     whether it is audio rather than an image
     * @param positions how far it advances the position of what follows it: {@code length} for a
     *                  projector that places one embedding per position, fewer for one that places
     *                  an image by M-RoPE (Qwen2-VL and later: {@code max(width, height)} in merged
     *                  patches, libmtmd's {@code mtmd_input_chunk_get_n_pos}). Equal ids have equal
     *                  positions, as they have equal embeddings.
     */
    record Span(String id, int start, int length, boolean audio, int positions) {
        public Span {
            Objects.requireNonNull(id);
            if (start < 0 || length <= 0) {
                throw new IllegalArgumentException("a media span needs a start >= 0 and a length > 0");
            }
            if (positions <= 0 || positions > length) {
                throw new IllegalArgumentException(
                        "a media span takes 1 to length (" + length + ") positions, not " + positions);
            }
        }

        /** A chunk that places one embedding per position. */
        public Span(String id, int start, int length, boolean audio) {
            this(id, start, length, audio, length);
        }

        /** The index after its last placeholder. */
        public int end() {
            return start + length;
        }
    }

    /** The prompt: text token ids and, for each media chunk, its run of placeholders. */
    int[] tokens();

    /** The media chunks, in prompt order. */
    List<Span> media();

    /** One more reference; the native chunks live until every reference is closed. */
    MediaTokens retain();

    /** Drops one reference; the last one frees the native chunks. */
    @Override
    void close();

    /** Whether {@code token} is a media placeholder (no vocabulary id is). */
    static boolean isPlaceholder(int token) {
        return token < -1;
    }

    /**
     * The placeholder at {@code offset} of the run of the media named {@code id} (a SHA-256 in hex):
     * 30 bits of the hash, word {@code offset % 8}, below {@code -2^30}.
     */
    static int placeholder(String id, int offset) {
        byte[] hash = HexFormat.of().parseHex(id);
        if (hash.length < 32) {
            throw new IllegalArgumentException("a media id is a SHA-256 in hex: " + id);
        }
        int at = (offset % 8) * 4;
        int word = ((hash[at] & 0xFF) << 24)
                | ((hash[at + 1] & 0xFF) << 16)
                | ((hash[at + 2] & 0xFF) << 8)
                | (hash[at + 3] & 0xFF);
        return Integer.MIN_VALUE | (word & 0x3FFFFFFF);
    }
}
