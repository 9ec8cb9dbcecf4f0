package forge.backend.llamacpp;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import forge.api.BackendException;
import forge.api.backend.MediaTokens;
import forge.api.template.ChatImage;
import forge.backend.llamacpp.ffm.LlamaLibrary;
import forge.backend.llamacpp.ffm.Mtmd;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A prompt split by a {@link LlamaProjector} into text and media chunks: the Java view (each text
 * chunk's tokens; each media chunk's kind, id, token count and positions) and the native
 * {@code mtmd_input_chunks} it was read from, which {@link LlamaProjector#eval} decodes. The
 * native chunks live in a shared arena of their own with {@code mtmd_input_chunks_free}
 * attached. As a {@link MediaTokens} it is counted: {@link #retain} adds a holder, {@link #close}
 * drops one, and the last close frees the chunks (a close beyond that does nothing).
 *
 * <p>A media chunk may have been split from its image's size alone (an image the projector decoded
 * before: see {@link LlamaProjector}); such a prompt keeps what it was split from ({@link Pixels}),
 * and {@link #encodable} splits it again with the pixels the first time one of its chunks must be
 * encoded. That second split is held (and freed) with this prompt.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
public final class MediaPrompt implements MediaTokens {

    /** What a media chunk holds. */
    public enum Kind {
        IMAGE,
        AUDIO
    }

    /** One chunk of the prompt. */
    public sealed interface Chunk permits Text, Media {
        /** How many positions of the context the chunk takes. */
        int positions();

        /** How many tokens (text tokens or embeddings) the chunk is: what usage counts. */
        int tokens();
    }

    /** Text, tokenized with the model's vocabulary. */
    public record Text(int[] ids) implements Chunk {
        @Override
        public int positions() {
            return ids.length;
        }

        @Override
        public int tokens() {
            return ids.length;
        }
    }

    /**
     * An image or audio clip.
     *
     * @param id         the SHA-256 of the image's bytes (lower-case hex): equal ids, equal embeddings
     * @param embeddings how many embeddings the encoder makes of it
     * @param positions  how many positions they take (fewer than embeddings with M-RoPE)
     */
    public record Media(Kind kind, String id, int embeddings, int positions) implements Chunk {
        @Override
        public int tokens() {
            return embeddings;
        }
    }

    /** What a prompt was split from, to split it again with the pixels. */
    record Pixels(String prompt, List<ChatImage> images, boolean addSpecial, long maxPixels) {
        Pixels {
            images = List.copyOf(images);
        }
    }

    private final LlamaProjector projector;
    private final Arena arena = Arena.ofShared();
    private Pixels pixels; // non-null while a media chunk was split from its size alone; guarded by this
    private MediaPrompt encodable; // the prompt split again with pixels, once asked; guarded by this
    private final MemorySegment chunks;
    private final AtomicInteger holders = new AtomicInteger(1);
    private List<Chunk> view = List.of();
    private int[] tokens = new int[0];
    private List<Span> spans = List.of();

    MediaPrompt(LlamaProjector projector, MemorySegment rawChunks) {
        this.projector = projector;
        this.chunks = rawChunks.reinterpret(arena, Mtmd::mtmd_input_chunks_free);
    }

    /** Reads the Java view of the native chunks, once, right after {@code mtmd_tokenize} filled them. */
    void read(Arena call) {
        long n = Mtmd.mtmd_input_chunks_size(chunks);
        List<Chunk> out = new ArrayList<>();
        MemorySegment count = call.allocate(JAVA_LONG);
        for (long i = 0; i < n; i++) {
            MemorySegment chunk = Mtmd.mtmd_input_chunks_get(chunks, i);
            int type = Mtmd.mtmd_input_chunk_get_type(chunk);
            if (type == Mtmd.MTMD_INPUT_CHUNK_TYPE_TEXT) {
                MemorySegment tokens = Mtmd.mtmd_input_chunk_get_tokens_text(chunk, count);
                long size = count.get(JAVA_LONG, 0);
                out.add(new Text(
                        size == 0
                                ? new int[0]
                                : tokens.reinterpret(size * Integer.BYTES).toArray(JAVA_INT)));
            } else {
                out.add(new Media(
                        type == Mtmd.MTMD_INPUT_CHUNK_TYPE_AUDIO ? Kind.AUDIO : Kind.IMAGE,
                        LlamaLibrary.cString(Mtmd.mtmd_input_chunk_get_id(chunk)),
                        (int) Mtmd.mtmd_input_chunk_get_n_tokens(chunk),
                        Mtmd.mtmd_input_chunk_get_n_pos(chunk)));
            }
        }
        view = List.copyOf(out);
        // the engine's view: text ids, and each media chunk as its run of placeholders (MediaTokens)
        int[] all = new int[view.stream().mapToInt(Chunk::tokens).sum()];
        List<Span> media = new ArrayList<>();
        int at = 0;
        for (Chunk c : view) {
            switch (c) {
                case Text t -> System.arraycopy(t.ids(), 0, all, at, t.ids().length);
                case Media m -> {
                    if (m.positions() < 1 || m.positions() > m.embeddings()) {
                        // M-RoPE takes fewer positions than embeddings, never more: the engine counts cells
                        throw new BackendException("a media chunk of " + m.embeddings() + " embeddings at "
                                + m.positions() + " positions, which the engine cannot place");
                    }
                    for (int j = 0; j < m.embeddings(); j++) {
                        all[at + j] = MediaTokens.placeholder(m.id(), j);
                    }
                    media.add(new Span(m.id(), at, m.embeddings(), m.kind() == Kind.AUDIO, m.positions()));
                }
            }
            at += c.tokens();
        }
        tokens = all;
        spans = List.copyOf(media);
    }

    @Override
    public int[] tokens() {
        return tokens.clone();
    }

    @Override
    public List<Span> media() {
        return spans;
    }

    /** The index in {@link #chunks()} of media span {@code span}. */
    int chunkOf(int span) {
        int seen = -1;
        for (int i = 0; i < view.size(); i++) {
            if (view.get(i) instanceof Media && ++seen == span) {
                return i;
            }
        }
        throw new BackendException("the prompt has no media chunk " + span);
    }

    /** Marks this prompt's media as split (some of it) from sizes alone; {@code source} splits it again. */
    void deferPixels(Pixels source) {
        synchronized (this) {
            pixels = source;
        }
    }

    /**
     * The prompt whose media chunks hold their pixels, so that {@link LlamaProjector#eval} can encode
     * them: this one, or the first time a prompt split from sizes alone asks, the same prompt split
     * again with every image decoded, which must give the same chunks.
     *
     * @throws BackendException when an image does not decode, or the second split differs
     */
    synchronized MediaPrompt encodable() {
        ensureOpen();
        if (pixels == null) {
            return this;
        }
        if (encodable == null) {
            MediaPrompt full = projector.splitWithPixels(pixels);
            if (!sameChunks(view, full.view)) {
                full.close();
                throw new BackendException("the prompt split with its images' pixels differs from its split by their"
                        + " sizes: " + full.view + " against " + view);
            }
            encodable = full;
        }
        return encodable;
    }

    private static boolean sameChunks(List<Chunk> a, List<Chunk> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            boolean same = switch (a.get(i)) {
                case Text t -> b.get(i) instanceof Text u && Arrays.equals(t.ids(), u.ids());
                case Media m -> m.equals(b.get(i));
            };
            if (!same) {
                return false;
            }
        }
        return true;
    }

    @Override
    public MediaPrompt retain() {
        if (holders.getAndUpdate(n -> n == 0 ? 0 : n + 1) == 0) {
            throw new BackendException("the media prompt is closed");
        }
        return this;
    }

    /** The projector that split the prompt. */
    LlamaProjector projector() {
        return projector;
    }

    /** The native {@code mtmd_input_chunks *}. */
    MemorySegment nativeChunks() {
        ensureOpen();
        return chunks;
    }

    /** The native chunk {@code i}. */
    MemorySegment chunk(int i) {
        ensureOpen();
        return Mtmd.mtmd_input_chunks_get(chunks, i);
    }

    /** The chunks from index {@code from} on. */
    public List<Chunk> chunks(int from) {
        return view.subList(from, view.size());
    }

    /** The chunks, in prompt order. */
    public List<Chunk> chunks() {
        return view;
    }

    /** How many chunks. */
    public int size() {
        return view.size();
    }

    /** The tokens the prompt counts: text tokens and media embeddings together. */
    public int tokenCount() {
        return view.stream().mapToInt(Chunk::tokens).sum();
    }

    /** The context positions the prompt takes. */
    public int positions() {
        return view.stream().mapToInt(Chunk::positions).sum();
    }

    private void ensureOpen() {
        if (holders.get() == 0) {
            throw new BackendException("the media prompt is closed");
        }
    }

    /** Drops one holder; the last frees the native chunks. Harmless when already freed. */
    @Override
    public void close() {
        if (holders.getAndUpdate(n -> n == 0 ? 0 : n - 1) == 1) {
            MediaPrompt full;
            synchronized (this) {
                full = encodable;
                encodable = null;
            }
            if (full != null) {
                full.close();
            }
            arena.close();
        }
    }
}
