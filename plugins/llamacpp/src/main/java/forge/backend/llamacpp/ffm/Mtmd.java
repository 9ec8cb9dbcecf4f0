package forge.backend.llamacpp.ffm;

import static forge.backend.llamacpp.ffm.Downcalls.rethrow;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The functions of llama.cpp's {@code libmtmd} ({@code tools/mtmd/mtmd.h}, {@code mtmd-helper.h},
 * and the {@code stb_image} decoder compiled into it) that ForgeLM calls, one static method per C
 * function, named exactly like it, bound on first call as {@link Llama}'s are.
 *
 * <p>libmtmd is not part of the prebuilt packages: {@code plugins/llamacpp/mtmd.sh} builds it from
 * the same release's source against their libllama and ggml, so its {@code DT_NEEDED} names are the
 * sonames of the libraries {@link LlamaLibrary} already loaded, and the loader reuses those (one
 * ggml, one backend registry). {@link #load} therefore runs only after {@link LlamaLibrary#load},
 * on the first projector a model loads with; a server that never sees one never opens it.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
public final class Mtmd {
    private Mtmd() {}

    /** {@code MTMD_INPUT_CHUNK_TYPE_TEXT}. */
    public static final int MTMD_INPUT_CHUNK_TYPE_TEXT = 0;
    /** {@code MTMD_INPUT_CHUNK_TYPE_IMAGE}. */
    public static final int MTMD_INPUT_CHUNK_TYPE_IMAGE = 1;
    /** {@code MTMD_INPUT_CHUNK_TYPE_AUDIO}. */
    public static final int MTMD_INPUT_CHUNK_TYPE_AUDIO = 2;

    private static volatile SymbolLookup lookup;
    private static Path loaded;

    /**
     * Loads {@code library} (once per process; again with the same path returns at once), checks
     * that it has every function bound here, and routes its log to SLF4J as llama.cpp's is.
     *
     * @throws LlamaLoadException when llama.cpp is not loaded yet, the file is missing or will not
     *                            load, another libmtmd is loaded, or a function is missing
     */
    public static synchronized void load(Path library) {
        Path lib = library.toAbsolutePath().normalize();
        if (lib.equals(loaded)) {
            return;
        }
        if (loaded != null) {
            throw new LlamaLoadException("libmtmd is already loaded from " + loaded + "; it cannot also load " + lib);
        }
        LlamaLibrary.lookup(); // throws when llama.cpp is not loaded: libmtmd must find its libllama loaded
        if (!Files.isRegularFile(lib)) {
            throw new LlamaLoadException("libmtmd not found at " + lib + " (run plugins/llamacpp/mtmd.sh)");
        }
        SymbolLookup found;
        try {
            found = SymbolLookup.libraryLookup(lib, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new LlamaLoadException("cannot load " + lib + ": " + e.getMessage(), e);
        }
        List<String> missing = Downcalls.missing(found, List.of(Handles.class));
        if (!missing.isEmpty()) {
            throw new LlamaLoadException("the libmtmd at " + lib + " does not match these bindings: unresolved symbol"
                    + (missing.size() == 1 ? ": " : "s: ") + String.join(", ", missing));
        }
        lookup = found;
        loaded = lib;
        checkLayout(lib);
        mtmd_helper_log_set(LlamaLog.stub(), MemorySegment.NULL); // sets mtmd's (and clip's) too
    }

    /** Whether {@link #load} has run. */
    public static boolean isLoaded() {
        return lookup != null;
    }

    /** The defaults must read back as {@code mtmd_context_params_default} sets them in v0.5.0's {@code mtmd.cpp}. */
    private static void checkLayout(Path lib) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment p = mtmd_context_params_default(scratch);
            boolean ok = Structs.getBoolean(p, Structs.mtmd_context_params, "use_gpu")
                    && Structs.getBoolean(p, Structs.mtmd_context_params, "warmup")
                    && Structs.getInt(p, Structs.mtmd_context_params, "image_min_tokens") == -1
                    && Structs.getInt(p, Structs.mtmd_context_params, "image_max_tokens") == -1
                    && Structs.getInt(p, Structs.mtmd_context_params, "batch_max_tokens") == 1024
                    && LlamaLibrary.cString(Structs.getAddress(p, Structs.mtmd_context_params, "media_marker"))
                            .equals(LlamaLibrary.cString(mtmd_default_marker()));
            if (!ok) {
                throw new LlamaLoadException(
                        "the libmtmd at " + lib + " does not lay out mtmd_context_params as these bindings do");
            }
        }
    }

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor) {
        return Downcalls.bind(Objects.requireNonNull(lookup, "libmtmd is not loaded"), name, descriptor);
    }

    /** One holder class per C function, named like it, bound on its first call. */
    private static final class Handles {
        // struct mtmd_context_params mtmd_context_params_default(void);
        static final class mtmd_context_params_default {
            static final MethodHandle H =
                    downcall("mtmd_context_params_default", FunctionDescriptor.of(Structs.mtmd_context_params));
        }

        // mtmd_context * mtmd_init_from_file(const char * mmproj_fname, const struct llama_model * text_model, const
        // struct mtmd_context_params ctx_params);
        static final class mtmd_init_from_file {
            static final MethodHandle H = downcall(
                    "mtmd_init_from_file",
                    FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, Structs.mtmd_context_params));
        }

        // void mtmd_free(mtmd_context * ctx);
        static final class mtmd_free {
            static final MethodHandle H = downcall("mtmd_free", FunctionDescriptor.ofVoid(ADDRESS));
        }

        // bool mtmd_support_vision(const mtmd_context * ctx);
        static final class mtmd_support_vision {
            static final MethodHandle H = downcall("mtmd_support_vision", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
        }

        // bool mtmd_support_audio(const mtmd_context * ctx);
        static final class mtmd_support_audio {
            static final MethodHandle H = downcall("mtmd_support_audio", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
        }

        // bool mtmd_decode_use_non_causal(const mtmd_context * ctx, const mtmd_input_chunk * chunk);
        static final class mtmd_decode_use_non_causal {
            static final MethodHandle H =
                    downcall("mtmd_decode_use_non_causal", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, ADDRESS));
        }

        // bool mtmd_decode_use_mrope(const mtmd_context * ctx);
        static final class mtmd_decode_use_mrope {
            static final MethodHandle H =
                    downcall("mtmd_decode_use_mrope", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
        }

        // const char * mtmd_default_marker(void);
        static final class mtmd_default_marker {
            static final MethodHandle H = downcall("mtmd_default_marker", FunctionDescriptor.of(ADDRESS));
        }

        // mtmd_bitmap * mtmd_bitmap_init(uint32_t nx, uint32_t ny, const unsigned char * data);
        static final class mtmd_bitmap_init {
            static final MethodHandle H =
                    downcall("mtmd_bitmap_init", FunctionDescriptor.of(ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
        }

        // struct mtmd_helper_init_opt mtmd_helper_init_opt_default(void); // mtmd-helper.h
        static final class mtmd_helper_init_opt_default {
            static final MethodHandle H =
                    downcall("mtmd_helper_init_opt_default", FunctionDescriptor.of(HELPER_INIT_OPT));
        }

        // struct mtmd_helper_bitmap_wrapper mtmd_helper_bitmap_init_from_buf(const mtmd_context * ctx,
        //     const unsigned char * buf, size_t len, bool placeholder, struct mtmd_helper_init_opt opt);
        static final class mtmd_helper_bitmap_init_from_buf {
            static final MethodHandle H = downcall(
                    "mtmd_helper_bitmap_init_from_buf",
                    FunctionDescriptor.of(
                            HELPER_BITMAP_WRAPPER, ADDRESS, ADDRESS, JAVA_LONG, JAVA_BOOLEAN, HELPER_INIT_OPT));
        }

        // void mtmd_bitmap_free(mtmd_bitmap * bitmap);
        static final class mtmd_bitmap_free {
            static final MethodHandle H = downcall("mtmd_bitmap_free", FunctionDescriptor.ofVoid(ADDRESS));
        }

        // void mtmd_bitmap_set_id(mtmd_bitmap * bitmap, const char * id);
        static final class mtmd_bitmap_set_id {
            static final MethodHandle H = downcall("mtmd_bitmap_set_id", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        }

        // mtmd_input_chunks * mtmd_input_chunks_init(void);
        static final class mtmd_input_chunks_init {
            static final MethodHandle H = downcall("mtmd_input_chunks_init", FunctionDescriptor.of(ADDRESS));
        }

        // size_t mtmd_input_chunks_size(const mtmd_input_chunks * chunks);
        static final class mtmd_input_chunks_size {
            static final MethodHandle H = downcall("mtmd_input_chunks_size", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        }

        // const mtmd_input_chunk * mtmd_input_chunks_get(const mtmd_input_chunks * chunks, size_t idx);
        static final class mtmd_input_chunks_get {
            static final MethodHandle H =
                    downcall("mtmd_input_chunks_get", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG));
        }

        // void mtmd_input_chunks_free(mtmd_input_chunks * chunks);
        static final class mtmd_input_chunks_free {
            static final MethodHandle H = downcall("mtmd_input_chunks_free", FunctionDescriptor.ofVoid(ADDRESS));
        }

        // enum mtmd_input_chunk_type mtmd_input_chunk_get_type(const mtmd_input_chunk * chunk);
        static final class mtmd_input_chunk_get_type {
            static final MethodHandle H =
                    downcall("mtmd_input_chunk_get_type", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }

        // const llama_token * mtmd_input_chunk_get_tokens_text(const mtmd_input_chunk * chunk, size_t *
        // n_tokens_output);
        static final class mtmd_input_chunk_get_tokens_text {
            static final MethodHandle H =
                    downcall("mtmd_input_chunk_get_tokens_text", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        }

        // size_t mtmd_input_chunk_get_n_tokens(const mtmd_input_chunk * chunk);
        static final class mtmd_input_chunk_get_n_tokens {
            static final MethodHandle H =
                    downcall("mtmd_input_chunk_get_n_tokens", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        }

        // llama_pos mtmd_input_chunk_get_n_pos(const mtmd_input_chunk * chunk);
        static final class mtmd_input_chunk_get_n_pos {
            static final MethodHandle H =
                    downcall("mtmd_input_chunk_get_n_pos", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }

        // const char * mtmd_input_chunk_get_id(const mtmd_input_chunk * chunk);
        static final class mtmd_input_chunk_get_id {
            static final MethodHandle H = downcall("mtmd_input_chunk_get_id", FunctionDescriptor.of(ADDRESS, ADDRESS));
        }

        // int32_t mtmd_tokenize(const mtmd_context * ctx, mtmd_input_chunks * output, const mtmd_input_text * text,
        // const mtmd_bitmap * const * bitmaps, size_t n_bitmaps);
        static final class mtmd_tokenize {
            static final MethodHandle H = downcall(
                    "mtmd_tokenize", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
        }

        // int32_t mtmd_helper_eval_chunk_single(mtmd_context * ctx, struct llama_context * lctx, const mtmd_input_chunk
        // * chunk, llama_pos n_past, llama_seq_id seq_id, int32_t n_batch, bool logits_last, llama_pos * new_n_past);
        // // mtmd-helper.h
        static final class mtmd_helper_eval_chunk_single {
            static final MethodHandle H = downcall(
                    "mtmd_helper_eval_chunk_single",
                    FunctionDescriptor.of(
                            JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_BOOLEAN, ADDRESS));
        }

        // void mtmd_log_set(ggml_log_callback log_callback, void * user_data);
        static final class mtmd_log_set {
            static final MethodHandle H = downcall("mtmd_log_set", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        }

        // void mtmd_helper_log_set(ggml_log_callback log_callback, void * user_data); // mtmd-helper.h
        static final class mtmd_helper_log_set {
            static final MethodHandle H = downcall("mtmd_helper_log_set", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        }

        // int stbi_info_from_memory(stbi_uc const * buffer, int len, int * x, int * y, int * comp); // stb_image, in
        // libmtmd
        static final class stbi_info_from_memory {
            static final MethodHandle H = downcall(
                    "stbi_info_from_memory",
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        }

        // stbi_uc * stbi_load_from_memory(stbi_uc const * buffer, int len, int * x, int * y, int * channels_in_file,
        // int desired_channels); // stb_image, in libmtmd
        static final class stbi_load_from_memory {
            static final MethodHandle H = downcall(
                    "stbi_load_from_memory",
                    FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
        }

        // void stbi_image_free(void * retval_from_stbi_load); // stb_image, in libmtmd
        static final class stbi_image_free {
            static final MethodHandle H = downcall("stbi_image_free", FunctionDescriptor.ofVoid(ADDRESS));
        }

        // const char * stbi_failure_reason(void); // stb_image, in libmtmd (thread-local in this build)
        static final class stbi_failure_reason {
            static final MethodHandle H = downcall("stbi_failure_reason", FunctionDescriptor.of(ADDRESS));
        }
    }

    /** {@code struct mtmd_context_params mtmd_context_params_default(void);} */
    public static MemorySegment mtmd_context_params_default(SegmentAllocator allocator) {
        try {
            return (MemorySegment) Handles.mtmd_context_params_default.H.invokeExact(allocator);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code mtmd_context * mtmd_init_from_file(const char * mmproj_fname, const struct llama_model * text_model, const struct mtmd_context_params ctx_params);} */
    public static MemorySegment mtmd_init_from_file(
            MemorySegment mmprojFname, MemorySegment textModel, MemorySegment ctxParams) {
        try {
            return (MemorySegment) Handles.mtmd_init_from_file.H.invokeExact(mmprojFname, textModel, ctxParams);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void mtmd_free(mtmd_context * ctx);} */
    public static void mtmd_free(MemorySegment ctx) {
        try {
            Handles.mtmd_free.H.invokeExact(ctx);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code bool mtmd_support_vision(const mtmd_context * ctx);} */
    public static boolean mtmd_support_vision(MemorySegment ctx) {
        try {
            return (boolean) Handles.mtmd_support_vision.H.invokeExact(ctx);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code bool mtmd_support_audio(const mtmd_context * ctx);} */
    public static boolean mtmd_support_audio(MemorySegment ctx) {
        try {
            return (boolean) Handles.mtmd_support_audio.H.invokeExact(ctx);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code bool mtmd_decode_use_non_causal(const mtmd_context * ctx, const mtmd_input_chunk * chunk);} */
    public static boolean mtmd_decode_use_non_causal(MemorySegment ctx, MemorySegment chunk) {
        try {
            return (boolean) Handles.mtmd_decode_use_non_causal.H.invokeExact(ctx, chunk);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code bool mtmd_decode_use_mrope(const mtmd_context * ctx);} */
    public static boolean mtmd_decode_use_mrope(MemorySegment ctx) {
        try {
            return (boolean) Handles.mtmd_decode_use_mrope.H.invokeExact(ctx);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code const char * mtmd_default_marker(void);} */
    public static MemorySegment mtmd_default_marker() {
        try {
            return (MemorySegment) Handles.mtmd_default_marker.H.invokeExact();
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code mtmd_bitmap * mtmd_bitmap_init(uint32_t nx, uint32_t ny, const unsigned char * data);} */
    public static MemorySegment mtmd_bitmap_init(int nx, int ny, MemorySegment data) {
        try {
            return (MemorySegment) Handles.mtmd_bitmap_init.H.invokeExact(nx, ny, data);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /**
     * {@code struct mtmd_helper_init_opt { struct mtmd_helper_video_init_params { float fps_target;
     * const char * ffmpeg_bin_dir; int64_t timestamp_interval_ms; } video_params; }} ({@code mtmd-helper.h}),
     * passed by value.
     */
    static final StructLayout HELPER_INIT_OPT = MemoryLayout.structLayout(
            JAVA_FLOAT.withName("fps_target"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("ffmpeg_bin_dir"),
            JAVA_LONG.withName("timestamp_interval_ms"));

    /** {@code struct mtmd_helper_bitmap_wrapper { mtmd_bitmap * bitmap; mtmd_helper_video * video_ctx; }}, returned by value. */
    static final StructLayout HELPER_BITMAP_WRAPPER =
            MemoryLayout.structLayout(ADDRESS.withName("bitmap"), ADDRESS.withName("video_ctx"));

    /**
     * {@code mtmd_helper_bitmap_init_from_buf(ctx, buf, len, false, mtmd_helper_init_opt_default())}
     * ({@code mtmd-helper.h}): the bitmap of an audio file's samples (WAV, MP3, FLAC through
     * miniaudio, resampled to the projector's rate) or of an image's pixels, NULL when the bytes
     * decode as neither. Only the bitmap is returned: a video context comes only of a video (with
     * ffmpeg at hand), never of the audio this is called with, whose header the caller checked;
     * should one come, its bitmap is freed and NULL returned.
     */
    public static MemorySegment mtmd_helper_bitmap_init_from_buf(MemorySegment ctx, MemorySegment buf, long len) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment opt =
                    (MemorySegment) Handles.mtmd_helper_init_opt_default.H.invokeExact((SegmentAllocator) call);
            MemorySegment wrapper = (MemorySegment) Handles.mtmd_helper_bitmap_init_from_buf.H.invokeExact(
                    (SegmentAllocator) call, ctx, buf, len, false, opt);
            MemorySegment bitmap = wrapper.get(ADDRESS, 0);
            if (!wrapper.get(ADDRESS, ADDRESS.byteSize()).equals(MemorySegment.NULL)) {
                if (!bitmap.equals(MemorySegment.NULL)) {
                    mtmd_bitmap_free(bitmap);
                }
                return MemorySegment.NULL;
            }
            return bitmap;
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void mtmd_bitmap_free(mtmd_bitmap * bitmap);} */
    public static void mtmd_bitmap_free(MemorySegment bitmap) {
        try {
            Handles.mtmd_bitmap_free.H.invokeExact(bitmap);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void mtmd_bitmap_set_id(mtmd_bitmap * bitmap, const char * id);} */
    public static void mtmd_bitmap_set_id(MemorySegment bitmap, MemorySegment id) {
        try {
            Handles.mtmd_bitmap_set_id.H.invokeExact(bitmap, id);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code mtmd_input_chunks * mtmd_input_chunks_init(void);} */
    public static MemorySegment mtmd_input_chunks_init() {
        try {
            return (MemorySegment) Handles.mtmd_input_chunks_init.H.invokeExact();
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code size_t mtmd_input_chunks_size(const mtmd_input_chunks * chunks);} */
    public static long mtmd_input_chunks_size(MemorySegment chunks) {
        try {
            return (long) Handles.mtmd_input_chunks_size.H.invokeExact(chunks);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code const mtmd_input_chunk * mtmd_input_chunks_get(const mtmd_input_chunks * chunks, size_t idx);} */
    public static MemorySegment mtmd_input_chunks_get(MemorySegment chunks, long idx) {
        try {
            return (MemorySegment) Handles.mtmd_input_chunks_get.H.invokeExact(chunks, idx);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void mtmd_input_chunks_free(mtmd_input_chunks * chunks);} */
    public static void mtmd_input_chunks_free(MemorySegment chunks) {
        try {
            Handles.mtmd_input_chunks_free.H.invokeExact(chunks);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code enum mtmd_input_chunk_type mtmd_input_chunk_get_type(const mtmd_input_chunk * chunk);} */
    public static int mtmd_input_chunk_get_type(MemorySegment chunk) {
        try {
            return (int) Handles.mtmd_input_chunk_get_type.H.invokeExact(chunk);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code const llama_token * mtmd_input_chunk_get_tokens_text(const mtmd_input_chunk * chunk, size_t * n_tokens_output);} */
    public static MemorySegment mtmd_input_chunk_get_tokens_text(MemorySegment chunk, MemorySegment nTokensOutput) {
        try {
            return (MemorySegment) Handles.mtmd_input_chunk_get_tokens_text.H.invokeExact(chunk, nTokensOutput);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code size_t mtmd_input_chunk_get_n_tokens(const mtmd_input_chunk * chunk);} */
    public static long mtmd_input_chunk_get_n_tokens(MemorySegment chunk) {
        try {
            return (long) Handles.mtmd_input_chunk_get_n_tokens.H.invokeExact(chunk);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code llama_pos mtmd_input_chunk_get_n_pos(const mtmd_input_chunk * chunk);} */
    public static int mtmd_input_chunk_get_n_pos(MemorySegment chunk) {
        try {
            return (int) Handles.mtmd_input_chunk_get_n_pos.H.invokeExact(chunk);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code const char * mtmd_input_chunk_get_id(const mtmd_input_chunk * chunk);} */
    public static MemorySegment mtmd_input_chunk_get_id(MemorySegment chunk) {
        try {
            return (MemorySegment) Handles.mtmd_input_chunk_get_id.H.invokeExact(chunk);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t mtmd_tokenize(const mtmd_context * ctx, mtmd_input_chunks * output, const mtmd_input_text * text, const mtmd_bitmap * const * bitmaps, size_t n_bitmaps);} */
    public static int mtmd_tokenize(
            MemorySegment ctx, MemorySegment output, MemorySegment text, MemorySegment bitmaps, long nBitmaps) {
        try {
            return (int) Handles.mtmd_tokenize.H.invokeExact(ctx, output, text, bitmaps, nBitmaps);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t mtmd_helper_eval_chunk_single(mtmd_context * ctx, struct llama_context * lctx, const mtmd_input_chunk * chunk, llama_pos n_past, llama_seq_id seq_id, int32_t n_batch, bool logits_last, llama_pos * new_n_past);} */
    public static int mtmd_helper_eval_chunk_single(
            MemorySegment ctx,
            MemorySegment lctx,
            MemorySegment chunk,
            int nPast,
            int seqId,
            int nBatch,
            boolean logitsLast,
            MemorySegment newNPast) {
        try {
            return (int) Handles.mtmd_helper_eval_chunk_single.H.invokeExact(
                    ctx, lctx, chunk, nPast, seqId, nBatch, logitsLast, newNPast);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void mtmd_log_set(ggml_log_callback log_callback, void * user_data);} */
    public static void mtmd_log_set(MemorySegment logCallback, MemorySegment userData) {
        try {
            Handles.mtmd_log_set.H.invokeExact(logCallback, userData);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void mtmd_helper_log_set(ggml_log_callback log_callback, void * user_data);} */
    public static void mtmd_helper_log_set(MemorySegment logCallback, MemorySegment userData) {
        try {
            Handles.mtmd_helper_log_set.H.invokeExact(logCallback, userData);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int stbi_info_from_memory(stbi_uc const * buffer, int len, int * x, int * y, int * comp);} */
    public static int stbi_info_from_memory(
            MemorySegment buffer, int len, MemorySegment x, MemorySegment y, MemorySegment comp) {
        try {
            return (int) Handles.stbi_info_from_memory.H.invokeExact(buffer, len, x, y, comp);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code stbi_uc * stbi_load_from_memory(stbi_uc const * buffer, int len, int * x, int * y, int * channels_in_file, int desired_channels);} */
    public static MemorySegment stbi_load_from_memory(
            MemorySegment buffer,
            int len,
            MemorySegment x,
            MemorySegment y,
            MemorySegment channelsInFile,
            int desiredChannels) {
        try {
            return (MemorySegment)
                    Handles.stbi_load_from_memory.H.invokeExact(buffer, len, x, y, channelsInFile, desiredChannels);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void stbi_image_free(void * retval_from_stbi_load);} */
    public static void stbi_image_free(MemorySegment retvalFromStbiLoad) {
        try {
            Handles.stbi_image_free.H.invokeExact(retvalFromStbiLoad);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code const char * stbi_failure_reason(void);} */
    public static MemorySegment stbi_failure_reason() {
        try {
            return (MemorySegment) Handles.stbi_failure_reason.H.invokeExact();
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }
}
