package forge.backend.llamacpp;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import forge.api.BackendException;
import forge.api.template.ChatImage;
import forge.backend.llamacpp.ffm.LlamaLibrary;
import forge.backend.llamacpp.ffm.LlamaLog;
import forge.backend.llamacpp.ffm.Mtmd;
import forge.backend.llamacpp.ffm.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A multimodal projector ({@code mmproj-*.gguf}) loaded for one {@link LlamaModel}: libmtmd's
 * {@code mtmd_context}, which turns images into embeddings the model reads as positions of its
 * context. See the package documentation for who owns what; in short, a projector is loaded with
 * its model and freed before it ({@link LlamaModel#close} closes it), in a shared arena of its own
 * with {@code mtmd_free} attached.
 *
 * <p>Threads: {@link #tokenize} runs on any thread ({@code mtmd_tokenize} is thread-safe on a
 * shared context, and its result is a plain Java {@link MediaPrompt}); {@link #eval} runs on the
 * thread of the context it decodes into and holds a lock while it encodes, since
 * {@code mtmd_encode_chunk} writes the projector's one output buffer.
 *
 * <p>An image is decoded by the {@code stb_image} compiled into libmtmd, but only after its format
 * is known from its first bytes and its size read from its header ({@link ChatImage#dimensions}, in Java; then {@code stbi_info_from_memory} must agree),
 * so an unknown format or a decompression bomb is refused before any pixel is decoded. Each image
 * is named by the SHA-256 of its bytes: the media chunk carries that id, and it is what a cache
 * compares.
 *
 * <p>An image seen before is not decoded again to be split: a returning turn sends the image whose
 * KV its slot (or the prompt cache) already holds, and only its chunk shape is needed then. The
 * projector remembers the ids of the images whose bytes {@code stb_image} decoded and libmtmd
 * preprocessed ({@link #KNOWN_IMAGES} of them, the least recently used forgotten first); such an
 * image is split from an {@code mtmd_bitmap} of its size without pixels (libmtmd's placeholder,
 * which {@code mtmd_tokenize} counts and places exactly as the pixels, the shape depending on the
 * size alone), so the split costs no decode and no preprocessing. Equal bytes decode equally, so a
 * remembered image needs no second look; its header is still checked in Java each time. Should the
 * engine have to encode such a chunk after all (its cells were evicted), {@link #eval} first splits
 * the prompt again with the pixels ({@link MediaPrompt#encodable}), which must give the same chunks.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
public final class LlamaProjector implements AutoCloseable {

    private final Arena arena = Arena.ofShared();
    private final MemorySegment mtmd;
    private final Path path;
    private final boolean vision;
    private final boolean audio;
    private final String marker;
    private final ReentrantLock encoder = new ReentrantLock();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong pixelDecodes = new AtomicLong();

    /** How many decoded images' ids a projector remembers (64 hex digits each). */
    static final int KNOWN_IMAGES = 4096;

    /** The ids of images decoded and preprocessed here, least recently used first; guarded by itself. */
    private final Map<String, Boolean> known = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > KNOWN_IMAGES;
        }
    };

    private LlamaProjector(MemorySegment raw, Path path) {
        this.mtmd = raw.reinterpret(arena, Mtmd::mtmd_free);
        this.path = path;
        this.vision = Mtmd.mtmd_support_vision(mtmd);
        this.audio = Mtmd.mtmd_support_audio(mtmd);
        this.marker = LlamaLibrary.cString(Mtmd.mtmd_default_marker());
    }

    /**
     * Loads the projector {@code mmproj} for {@code model}, with libmtmd from {@code libmtmd} (loaded
     * into the process on the first call).
     *
     * @param threads the CPU threads the encoder uses
     * @param useGpu  whether the encoder may run on a GPU device
     * @throws BackendException when libmtmd cannot be loaded, or llama.cpp refuses the file: not a
     *                          projector, an unknown projector type, or an embedding width that is not
     *                          the model's (the message says which)
     */
    static LlamaProjector load(LlamaModel model, Path mmproj, Path libmtmd, int threads, boolean useGpu) {
        model.ensureOpen();
        if (!Files.isRegularFile(mmproj)) {
            throw new BackendException("projector " + mmproj + " is not a file");
        }
        try {
            Mtmd.load(libmtmd);
        } catch (RuntimeException e) {
            throw new BackendException("cannot load libmtmd for the projector " + mmproj + ": " + e.getMessage(), e);
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment params = Mtmd.mtmd_context_params_default(call);
            Structs.setBoolean(params, Structs.mtmd_context_params, "use_gpu", useGpu);
            Structs.setBoolean(params, Structs.mtmd_context_params, "print_timings", false);
            Structs.setInt(params, Structs.mtmd_context_params, "n_threads", Math.max(1, threads));
            LlamaLog.takeLastError(); // only this load's errors below
            MemorySegment raw = Mtmd.mtmd_init_from_file(call.allocateFrom(mmproj.toString()), model.segment(), params);
            if (raw.equals(MemorySegment.NULL)) {
                String why = LlamaLog.takeLastError().strip();
                throw new BackendException("llama.cpp could not load the projector " + mmproj + " for " + model.path()
                        + (why.isEmpty() ? "" : ": " + why));
            }
            return new LlamaProjector(raw, mmproj);
        }
    }

    /** The projector file. */
    public Path path() {
        return path;
    }

    /** Whether the projector encodes images. */
    public boolean vision() {
        return vision;
    }

    /** Whether the projector encodes audio. */
    public boolean audio() {
        return audio;
    }

    /** The marker ({@code <__media__>}) a prompt carries where each image goes. */
    public String marker() {
        return marker;
    }

    /**
     * What {@link #eval} left: the next position of the sequence, and the batch index a sampler
     * reads the last token's logits at (-1 when none were asked).
     */
    public record Evaluation(int position, int logitsIndex) {}

    /**
     * Splits {@code prompt} at its {@link #marker() markers} into text and media chunks, the
     * {@code i}-th marker becoming {@code images.get(i)}: text chunks tokenized (special tokens
     * parsed), media chunks preprocessed and counted (not encoded yet). The result holds the
     * native chunks until it is closed: {@link #eval} decodes them, the caller closes it after.
     *
     * @param addSpecial whether the model's BOS is added, as {@code llama_tokenize} adds it
     * @param maxPixels  the largest width times height an image may have, read from its header
     *                   before it is decoded
     * @throws BackendException for an image that is no PNG, JPEG, GIF or BMP, one too large, one that
     *                          does not decode, or a count of images unlike the count of markers
     */
    public MediaPrompt tokenize(String prompt, List<ChatImage> images, boolean addSpecial, long maxPixels) {
        ensureOpen();
        if (!vision && images.stream().anyMatch(m -> !m.isAudio())) {
            throw new BackendException("the projector " + path + " does not read images");
        }
        if (!audio && images.stream().anyMatch(ChatImage::isAudio)) {
            throw new BackendException("the projector " + path + " does not read audio");
        }
        int markers = count(prompt, marker);
        if (markers != images.size()) {
            // checked here: mtmd_tokenize's return code does not tell this from a preprocessing failure
            throw new BackendException("the prompt has " + markers + " media markers for " + images.size() + " images");
        }
        boolean[] shapeOnly = new boolean[images.size()];
        boolean any = false;
        synchronized (known) {
            for (int i = 0; i < images.size(); i++) {
                ChatImage media = images.get(i);
                shapeOnly[i] = !media.isAudio() && known.get(media.id()) != null;
                any |= shapeOnly[i];
            }
        }
        MediaPrompt result = split(prompt, images, addSpecial, maxPixels, shapeOnly);
        if (any) {
            result.deferPixels(new MediaPrompt.Pixels(prompt, images, addSpecial, maxPixels));
        }
        return result;
    }

    /**
     * The prompt split again with every image's pixels: what {@link MediaPrompt#encodable} asks
     * when a chunk split from an image's shape alone must be encoded.
     */
    MediaPrompt splitWithPixels(MediaPrompt.Pixels source) {
        ensureOpen();
        return split(
                source.prompt(),
                source.images(),
                source.addSpecial(),
                source.maxPixels(),
                new boolean[source.images().size()]);
    }

    /**
     * {@code mtmd_tokenize} of {@code prompt} with {@code images}, the {@code i}-th from its size
     * alone (a placeholder bitmap) where {@code shapeOnly[i]}, else decoded; the decoded ones are
     * remembered once libmtmd has preprocessed them.
     */
    private MediaPrompt split(
            String prompt, List<ChatImage> images, boolean addSpecial, long maxPixels, boolean[] shapeOnly) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment bitmaps = call.allocate(ADDRESS, Math.max(1, images.size()));
            try {
                for (int i = 0; i < images.size(); i++) {
                    ChatImage media = images.get(i);
                    bitmaps.setAtIndex(
                            ADDRESS,
                            i,
                            media.isAudio()
                                    ? decodeAudio(call, media, i)
                                    : shapeOnly[i]
                                            ? shape(call, media, i, maxPixels)
                                            : decode(call, media, i, maxPixels));
                }
                MemorySegment text = call.allocate(Structs.mtmd_input_text);
                Structs.setAddress(text, Structs.mtmd_input_text, "text", call.allocateFrom(prompt));
                text.set(
                        JAVA_LONG,
                        Structs.offset(Structs.mtmd_input_text, "text_len"),
                        prompt.getBytes(StandardCharsets.UTF_8).length);
                Structs.setBoolean(text, Structs.mtmd_input_text, "add_special", addSpecial);
                Structs.setBoolean(text, Structs.mtmd_input_text, "parse_special", true);
                MediaPrompt result = new MediaPrompt(this, Mtmd.mtmd_input_chunks_init());
                try {
                    LlamaLog.takeLastError();
                    int rc = Mtmd.mtmd_tokenize(mtmd, result.nativeChunks(), text, bitmaps, images.size());
                    if (rc != 0) {
                        throw new BackendException("llama.cpp could not preprocess the images (mtmd_tokenize " + rc
                                + ")" + suffix(LlamaLog.takeLastError()));
                    }
                    result.read(call);
                    synchronized (known) {
                        for (int i = 0; i < images.size(); i++) {
                            if (!shapeOnly[i] && !images.get(i).isAudio()) {
                                known.put(images.get(i).id(), Boolean.TRUE);
                            }
                        }
                    }
                    return result;
                } catch (RuntimeException | Error e) {
                    result.close();
                    throw e;
                }
            } finally {
                for (int i = 0; i < images.size(); i++) {
                    MemorySegment bitmap = bitmaps.getAtIndex(ADDRESS, i);
                    if (!bitmap.equals(MemorySegment.NULL)) {
                        Mtmd.mtmd_bitmap_free(bitmap);
                    }
                }
            }
        }
    }

    /**
     * Decodes {@code prompt}'s chunks from {@code first} on into {@code context}'s sequence
     * {@code sequence}, the first at {@code position}: text chunks with {@code llama_decode} in
     * batches of the context's batch size, media chunks encoded by the projector and their
     * embeddings decoded (non-causally where the model wants it), through libmtmd's
     * {@code mtmd_helper_eval_chunk_single}. With {@code logitsLast} the prompt's last token has
     * logits afterwards, at the index {@link LlamaContext#sampler samplers} read.
     *
     * @return the position after the last chunk, and the batch index of the last token's logits
     *         (-1 without {@code logitsLast})
     * @throws BackendException when encoding or decoding fails (the sequence then holds what was
     *                          decoded before the failure; the caller removes it), or when
     *                          {@code logitsLast} is asked of a prompt that ends with media
     */
    public Evaluation eval(
            LlamaContext context, MediaPrompt prompt, int first, int position, int sequence, boolean logitsLast) {
        return eval(context, prompt, first, prompt.size(), position, sequence, logitsLast);
    }

    /**
     * {@link #eval(LlamaContext, MediaPrompt, int, int, int, boolean)} of the chunks
     * {@code [first, to)} only: the engine decodes one media chunk this way, between the text
     * batches it builds itself.
     */
    public Evaluation eval(
            LlamaContext context,
            MediaPrompt prompt,
            int first,
            int to,
            int position,
            int sequence,
            boolean logitsLast) {
        ensureOpen();
        context.ensureOpen();
        context.checkSequence(sequence);
        if (prompt.projector() != this || context.model().projector().orElse(null) != this) {
            throw new BackendException("the prompt or the context belongs to another projector than " + path);
        }
        if (first < 0 || to > prompt.size() || first > to) {
            throw new BackendException("chunks [" + first + ", " + to + ") of a prompt of " + prompt.size());
        }
        List<MediaPrompt.Chunk> chunks = prompt.chunks().subList(first, to);
        if (logitsLast && !chunks.isEmpty() && !(chunks.getLast() instanceof MediaPrompt.Text)) {
            throw new BackendException("a prompt that ends with media has no logits to sample from");
        }
        // the chunks with pixels: a media chunk split from its image's shape alone cannot be encoded
        MediaPrompt source =
                chunks.stream().anyMatch(MediaPrompt.Media.class::isInstance) ? prompt.encodable() : prompt;
        int batch = context.batchCapacity();
        for (int i = first; i < to; i++) {
            if (prompt.chunks().get(i) instanceof MediaPrompt.Media m
                    && m.embeddings() > context.ubatchCapacity()
                    && Mtmd.mtmd_decode_use_non_causal(mtmd, source.chunk(i))) {
                // llama_decode asserts (ending the process) on a non-causal batch split across ubatches
                throw new BackendException("an image of " + m.embeddings() + " embeddings needs a ubatch of at least"
                        + " that size for this model, which reads images non-causally; the context's is "
                        + context.ubatchCapacity() + " (raise --ubatch-size)");
            }
        }
        encoder.lock();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment next = call.allocate(JAVA_INT);
            int pos = position;
            int lastBatch = 0;
            for (int i = first; i < to; i++) {
                LlamaLog.takeLastError();
                next.set(JAVA_INT, 0, pos); // the helper adds to it
                boolean last = i == to - 1;
                int result = Mtmd.mtmd_helper_eval_chunk_single(
                        mtmd, context.segment(), source.chunk(i), pos, sequence, batch, logitsLast && last, next);
                if (result != 0) {
                    context.evaluatedOutside(0, false);
                    throw new BackendException("llama.cpp could not evaluate chunk " + i + " of the prompt (" + result
                            + ")" + suffix(LlamaLog.takeLastError()));
                }
                if (prompt.chunks().get(i) instanceof MediaPrompt.Text t) {
                    int n = t.ids().length;
                    lastBatch = n == 0 ? lastBatch : (n % batch == 0 ? batch : n % batch);
                }
                pos = next.get(JAVA_INT, 0);
            }
            context.evaluatedOutside(lastBatch, logitsLast);
            return new Evaluation(pos, logitsLast ? lastBatch - 1 : -1);
        } finally {
            encoder.unlock();
        }
    }

    /**
     * An audio clip's samples as an {@code mtmd_bitmap} named by its id, decoded by libmtmd's
     * helper (miniaudio: WAV or MP3, resampled to the projector's rate) once the header gives a
     * length; the caller frees it.
     */
    private MemorySegment decodeAudio(Arena call, ChatImage clip, int index) {
        if (clip.seconds().isEmpty()) {
            // as an image's header is read before stb_image sees it: nothing cut short reaches miniaudio
            throw new BackendException("audio clip " + index + " ("
                    + clip.audioFormat().orElse("?") + ") is truncated or malformed: its header gives no length");
        }
        byte[] bytes = clip.data();
        MemorySegment data = call.allocate(bytes.length);
        data.copyFrom(MemorySegment.ofArray(bytes));
        LlamaLog.takeLastError();
        MemorySegment bitmap = Mtmd.mtmd_helper_bitmap_init_from_buf(mtmd, data, bytes.length);
        if (bitmap.equals(MemorySegment.NULL)) {
            throw new BackendException("audio clip " + index + " ("
                    + clip.audioFormat().orElse("?") + ") does not decode" + suffix(LlamaLog.takeLastError()));
        }
        Mtmd.mtmd_bitmap_set_id(bitmap, call.allocateFrom(clip.id()));
        return bitmap;
    }

    /**
     * One image, decoded before, as an {@code mtmd_bitmap} of its size without pixels (libmtmd's
     * placeholder: split and counted as the pixels would be, never encoded), named by its id; its
     * header checked as {@link #decode} checks it; the caller frees it.
     */
    private static MemorySegment shape(Arena call, ChatImage image, int index, long maxPixels) {
        long[] size = header(image, index, maxPixels);
        MemorySegment bitmap = Mtmd.mtmd_bitmap_init((int) size[0], (int) size[1], MemorySegment.NULL);
        if (bitmap.equals(MemorySegment.NULL)) {
            throw new BackendException("image " + index + ": libmtmd refused a " + size[0] + "x" + size[1] + " bitmap");
        }
        Mtmd.mtmd_bitmap_set_id(bitmap, call.allocateFrom(image.id()));
        return bitmap;
    }

    /** An image's format and size from its header, refused when unknown, cut short or too large. */
    private static long[] header(ChatImage image, int index, long maxPixels) {
        String format = image.format()
                .orElseThrow(() -> new BackendException("image " + index + " is not in a supported format ("
                        + String.join(", ", ChatImage.FORMATS) + ")"
                        + (image.isWebp() ? ": WebP is not supported" : "")));
        long[] size = image.dimensions()
                .orElseThrow(() -> new BackendException(
                        "image " + index + " (" + format + ") is truncated or malformed: its header gives no size"));
        long width = size[0];
        long height = size[1];
        if (width <= 0 || height <= 0 || width * height > maxPixels) {
            throw new BackendException("image " + index + " is " + width + "x" + height + " pixels; at most "
                    + maxPixels + " pixels are accepted");
        }
        return size;
    }

    /** One image as an {@code mtmd_bitmap} of RGB pixels named by its id; the caller frees it. */
    private MemorySegment decode(Arena call, ChatImage image, int index, long maxPixels) {
        long[] size = header(image, index, maxPixels);
        long width = size[0];
        long height = size[1];
        String format = image.format().orElseThrow();
        byte[] bytes = image.data();
        MemorySegment data = call.allocate(bytes.length);
        data.copyFrom(MemorySegment.ofArray(bytes));
        MemorySegment x = call.allocate(JAVA_INT);
        MemorySegment y = call.allocate(JAVA_INT);
        MemorySegment comp = call.allocate(JAVA_INT);
        // stb_image's own reading of the header must agree before it decodes anything
        if (Mtmd.stbi_info_from_memory(data, bytes.length, x, y, comp) == 0
                || x.get(JAVA_INT, 0) != width
                || y.get(JAVA_INT, 0) != height) {
            throw new BackendException("image " + index + " (" + format + ") has an unreadable header: "
                    + LlamaLibrary.cString(Mtmd.stbi_failure_reason()));
        }
        pixelDecodes.incrementAndGet();
        MemorySegment pixels = Mtmd.stbi_load_from_memory(data, bytes.length, x, y, comp, 3);
        if (pixels.equals(MemorySegment.NULL)) {
            throw new BackendException("image " + index + " (" + format + ") does not decode: "
                    + LlamaLibrary.cString(Mtmd.stbi_failure_reason()));
        }
        try {
            int w = x.get(JAVA_INT, 0);
            int h = y.get(JAVA_INT, 0);
            MemorySegment bitmap = Mtmd.mtmd_bitmap_init(w, h, pixels);
            if (bitmap.equals(MemorySegment.NULL)) {
                throw new BackendException("image " + index + ": libmtmd refused a " + w + "x" + h + " bitmap");
            }
            Mtmd.mtmd_bitmap_set_id(bitmap, call.allocateFrom(image.id()));
            return bitmap;
        } finally {
            Mtmd.stbi_image_free(pixels);
        }
    }

    /** How many images this projector has decoded to pixels: what a test counts. */
    long pixelDecodes() {
        return pixelDecodes.get();
    }

    private static int count(String text, String marker) {
        int n = 0;
        for (int i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + marker.length())) {
            n++;
        }
        return n;
    }

    private static String suffix(String error) {
        return error.isBlank() ? "" : ": " + error.strip();
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new BackendException("the projector " + path + " is closed");
        }
    }

    /**
     * Frees the projector. Harmless when already closed.
     *
     * @throws BackendException while another thread is inside a libmtmd call on it
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            arena.close();
        } catch (IllegalStateException e) {
            closed.set(false);
            throw new BackendException("the projector " + path + " is in use by another thread", e);
        }
    }

    @Override
    public String toString() {
        return "LlamaProjector[" + path + (vision ? ", vision" : "") + (audio ? ", audio" : "") + "]";
    }
}
