package forge.backend.llamacpp.ffm;

import static forge.backend.llamacpp.ffm.Downcalls.rethrow;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The functions of {@code llama.h} (and one of {@code ggml-backend.h}) that ForgeLM calls, one
 * static method per C function, named exactly like it. Boring on purpose: no logic, no
 * translation of return codes (the product classes do that), only the C signature quoted above
 * each handle.
 *
 * <p>Binding is lazy, one handle at a time: each C function's handle lives in a holder class of
 * its own, named like the function (in {@code Handles}, {@code DeviceHandles},
 * {@code SamplerHandles}), which the JVM initialises on the first call, so the handle is still a
 * constant the JIT folds. Making a downcall handle spins its method-handle classes, a few
 * milliseconds each before the JIT; binding all of them at load cost 0.4 s of every start (the
 * AOT cache cannot hold them), and a server start calls about a third. What binding eagerly
 * gave is kept: {@link LlamaLibrary#load} looks every symbol up ({@link #missingSymbols}), so a
 * library that lacks one fails there, once, with "unresolved symbol: NAME". Struct-by-value
 * returns take a {@link SegmentAllocator} first, as the FFM linker wants; struct-by-value
 * arguments are segments of the {@link Structs} layouts.
 *
 * <p>Exceptions: a closed arena or a segment used from the wrong thread surfaces as the
 * {@link IllegalStateException} / {@link WrongThreadException} the linker throws, untouched.
 */
@SuppressWarnings("restricted") // native access is this module's purpose; it is granted with --enable-native-access
public final class Llama {
    private Llama() {}

    /** The holder classes of the functions looked up by name; {@code ProcHandles} are called by address. */
    private static final List<Class<?>> SYMBOL_GROUPS =
            List.of(Handles.class, DeviceHandles.class, SamplerHandles.class);

    /** How many handles have been made so far: binding is on first call. */
    private static final AtomicInteger BOUND = new AtomicInteger();

    /** How many handles each function got (never more than one: its holder class is initialised once). */
    private static final Map<String, AtomicInteger> MADE = new ConcurrentHashMap<>();

    /**
     * The C functions these bindings call that {@code lookup} does not find, in declaration
     * order: each holder class is named after its function. Looking up is cheap (no handle is
     * made), so {@link LlamaLibrary#load} checks every function at load.
     */
    static List<String> missingSymbols(SymbolLookup lookup) {
        return Downcalls.missing(lookup, SYMBOL_GROUPS);
    }

    /** How many C functions the bindings name, those called by address included. */
    static int functions() {
        return SYMBOL_GROUPS.stream()
                        .mapToInt(g -> g.getDeclaredClasses().length)
                        .sum()
                + ProcHandles.class.getDeclaredClasses().length;
    }

    /** How many of them have a handle yet. */
    static int bound() {
        return BOUND.get();
    }

    /** How many handles the function {@code name} was given so far: 0 before its first call (or {@link #bind}), then 1. */
    public static int made(String name) {
        AtomicInteger n = MADE.get(name);
        return n == null ? 0 : n.get();
    }

    /**
     * Makes the handles of {@code functions} now, on the calling thread; those made already are
     * skipped. A model load has the handles its context, warm-up and first request will call made
     * on a thread of its own while llama.cpp reads the model ({@code LlamaCppBackend}), so that the
     * engine and request threads find them made instead of spending milliseconds each on their
     * first call. A caller that gets there first waits for the class initialisation in progress,
     * as for any class, and never makes a handle twice.
     *
     * @throws IllegalArgumentException naming a function the bindings do not have, before any is made
     */
    public static void bind(List<String> functions) {
        List<Class<?>> holders = new ArrayList<>();
        for (String name : functions) {
            holders.add(holder(name).orElseThrow(() -> new IllegalArgumentException("no binding of " + name)));
        }
        for (Class<?> holder : holders) {
            try {
                Class.forName(holder.getName(), true, holder.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new AssertionError("a nested class of Llama is always found", e);
            }
        }
    }

    /** The holder class of the function {@code name}, among those looked up by name and those called by address. */
    private static Optional<Class<?>> holder(String name) {
        return Stream.concat(SYMBOL_GROUPS.stream(), Stream.of(ProcHandles.class))
                .flatMap(group -> Arrays.stream(group.getDeclaredClasses()))
                .filter(c -> c.getSimpleName().equals(name))
                .findFirst();
    }

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor) {
        return counted(name, Downcalls.bind(LlamaLibrary.lookup(), name, descriptor));
    }

    private static MethodHandle counted(String name, MethodHandle handle) {
        BOUND.incrementAndGet();
        MADE.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
        return handle;
    }

    /** The functions of {@code llama.h} and the few of {@code ggml*.h}: one holder class each, bound on first call. */
    private static final class Handles {
        // void llama_backend_init(void);
        static final class llama_backend_init {
            static final MethodHandle H = downcall("llama_backend_init", FunctionDescriptor.ofVoid());
        }
        // void llama_backend_free(void);
        static final class llama_backend_free {
            static final MethodHandle H = downcall("llama_backend_free", FunctionDescriptor.ofVoid());
        }
        // void ggml_backend_load_all_from_path(const char * dir_path); // libggml
        static final class ggml_backend_load_all_from_path {
            static final MethodHandle H =
                    downcall("ggml_backend_load_all_from_path", FunctionDescriptor.ofVoid(ADDRESS));
        }
        // ggml_backend_reg_t ggml_backend_load(const char * path); // libggml
        static final class ggml_backend_load {
            static final MethodHandle H = downcall("ggml_backend_load", FunctionDescriptor.of(ADDRESS, ADDRESS));
        }
        // void llama_log_set(ggml_log_callback log_callback, void * user_data);
        static final class llama_log_set {
            static final MethodHandle H = downcall("llama_log_set", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        }
        // const char * llama_print_system_info(void);
        static final class llama_print_system_info {
            static final MethodHandle H = downcall("llama_print_system_info", FunctionDescriptor.of(ADDRESS));
        }
        // const char * llama_version(void);
        static final class llama_version {
            static final MethodHandle H = downcall("llama_version", FunctionDescriptor.of(ADDRESS));
        }
        // size_t llama_max_parallel_sequences(void);
        static final class llama_max_parallel_sequences {
            static final MethodHandle H = downcall("llama_max_parallel_sequences", FunctionDescriptor.of(JAVA_LONG));
        }
        // struct llama_model_params llama_model_default_params(void);
        static final class llama_model_default_params {
            static final MethodHandle H =
                    downcall("llama_model_default_params", FunctionDescriptor.of(Structs.llama_model_params));
        }
        // struct llama_model * llama_model_load_from_file(const char * path_model, struct llama_model_params params);
        static final class llama_model_load_from_file {
            static final MethodHandle H = downcall(
                    "llama_model_load_from_file", FunctionDescriptor.of(ADDRESS, ADDRESS, Structs.llama_model_params));
        }
        // void llama_model_free(struct llama_model * model);
        static final class llama_model_free {
            static final MethodHandle H = downcall("llama_model_free", FunctionDescriptor.ofVoid(ADDRESS));
        }
        // struct llama_adapter_lora * llama_adapter_lora_init(struct llama_model * model, const char * path_lora);
        static final class llama_adapter_lora_init {
            static final MethodHandle H =
                    downcall("llama_adapter_lora_init", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        }
        // int32_t llama_set_adapters_lora(struct llama_context * ctx, struct llama_adapter_lora ** adapters,
        //         size_t n_adapters, float * scales);
        static final class llama_set_adapters_lora {
            static final MethodHandle H = downcall(
                    "llama_set_adapters_lora", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
        }
        // int32_t llama_model_meta_count(const struct llama_model * model);
        static final class llama_model_meta_count {
            static final MethodHandle H = downcall("llama_model_meta_count", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // int32_t llama_model_meta_key_by_index(const struct llama_model * model, int32_t i, char * buf, size_t
        // buf_size);
        static final class llama_model_meta_key_by_index {
            static final MethodHandle H = downcall(
                    "llama_model_meta_key_by_index",
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));
        }
        // int32_t llama_model_meta_val_str_by_index(const struct llama_model * model, int32_t i, char * buf, size_t
        // buf_size);
        static final class llama_model_meta_val_str_by_index {
            static final MethodHandle H = downcall(
                    "llama_model_meta_val_str_by_index",
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));
        }
        // int32_t llama_model_meta_val_str(const struct llama_model * model, const char * key, char * buf, size_t
        // buf_size);
        static final class llama_model_meta_val_str {
            static final MethodHandle H = downcall(
                    "llama_model_meta_val_str", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
        }
        // int32_t llama_model_desc(const struct llama_model * model, char * buf, size_t buf_size);
        static final class llama_model_desc {
            static final MethodHandle H =
                    downcall("llama_model_desc", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
        }
        // uint64_t llama_model_size(const struct llama_model * model);
        static final class llama_model_size {
            static final MethodHandle H = downcall("llama_model_size", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        }
        // uint64_t llama_model_n_params(const struct llama_model * model);
        static final class llama_model_n_params {
            static final MethodHandle H = downcall("llama_model_n_params", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        }
        // int32_t llama_model_n_ctx_train(const struct llama_model * model);
        static final class llama_model_n_ctx_train {
            static final MethodHandle H = downcall("llama_model_n_ctx_train", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // int32_t llama_model_n_embd(const struct llama_model * model);
        static final class llama_model_n_embd {
            static final MethodHandle H = downcall("llama_model_n_embd", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // int32_t llama_model_n_layer(const struct llama_model * model);
        static final class llama_model_n_layer {
            static final MethodHandle H = downcall("llama_model_n_layer", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // const char * llama_model_chat_template(const struct llama_model * model, const char * name);
        static final class llama_model_chat_template {
            static final MethodHandle H =
                    downcall("llama_model_chat_template", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        }
        // llama-server's built-in chat formats (src/llama-chat.cpp), which ForgeLM's generic template plugin mirrors.
        // int32_t llama_chat_apply_template(const char * tmpl, const struct llama_chat_message * chat, size_t n_msg,
        // bool add_ass, char * buf, int32_t length);
        static final class llama_chat_apply_template {
            static final MethodHandle H = downcall(
                    "llama_chat_apply_template",
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_BOOLEAN, ADDRESS, JAVA_INT));
        }
        // int32_t llama_chat_builtin_templates(const char ** output, size_t len);
        static final class llama_chat_builtin_templates {
            static final MethodHandle H =
                    downcall("llama_chat_builtin_templates", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
        }
        // const struct llama_vocab * llama_model_get_vocab(const struct llama_model * model);
        static final class llama_model_get_vocab {
            static final MethodHandle H = downcall("llama_model_get_vocab", FunctionDescriptor.of(ADDRESS, ADDRESS));
        }
        // int32_t llama_vocab_n_tokens(const struct llama_vocab * vocab);
        static final class llama_vocab_n_tokens {
            static final MethodHandle H = downcall("llama_vocab_n_tokens", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // enum llama_vocab_type llama_vocab_type(const struct llama_vocab * vocab);
        static final class llama_vocab_type {
            static final MethodHandle H = downcall("llama_vocab_type", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // const char * llama_vocab_get_text(const struct llama_vocab * vocab, llama_token token);
        static final class llama_vocab_get_text {
            static final MethodHandle H =
                    downcall("llama_vocab_get_text", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        }
        // bool llama_vocab_get_add_bos(const struct llama_vocab * vocab);
        static final class llama_vocab_get_add_bos {
            static final MethodHandle H =
                    downcall("llama_vocab_get_add_bos", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
        }
        // bool llama_vocab_get_add_eos(const struct llama_vocab * vocab);
        static final class llama_vocab_get_add_eos {
            static final MethodHandle H =
                    downcall("llama_vocab_get_add_eos", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
        }
        // llama_token llama_vocab_bos(const struct llama_vocab * vocab);
        static final class llama_vocab_bos {
            static final MethodHandle H = downcall("llama_vocab_bos", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // llama_token llama_vocab_eos(const struct llama_vocab * vocab);
        static final class llama_vocab_eos {
            static final MethodHandle H = downcall("llama_vocab_eos", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // llama_token llama_vocab_eot(const struct llama_vocab * vocab);
        static final class llama_vocab_eot {
            static final MethodHandle H = downcall("llama_vocab_eot", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // llama_token llama_vocab_sep(const struct llama_vocab * vocab);
        static final class llama_vocab_sep {
            static final MethodHandle H = downcall("llama_vocab_sep", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // llama_token llama_vocab_fim_pre(const struct llama_vocab * vocab);
        static final class llama_vocab_fim_pre {
            static final MethodHandle H = downcall("llama_vocab_fim_pre", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // llama_token llama_vocab_fim_suf(const struct llama_vocab * vocab);
        static final class llama_vocab_fim_suf {
            static final MethodHandle H = downcall("llama_vocab_fim_suf", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // llama_token llama_vocab_fim_mid(const struct llama_vocab * vocab);
        static final class llama_vocab_fim_mid {
            static final MethodHandle H = downcall("llama_vocab_fim_mid", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // llama_token llama_vocab_fim_rep(const struct llama_vocab * vocab);
        static final class llama_vocab_fim_rep {
            static final MethodHandle H = downcall("llama_vocab_fim_rep", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // llama_token llama_vocab_fim_sep(const struct llama_vocab * vocab);
        static final class llama_vocab_fim_sep {
            static final MethodHandle H = downcall("llama_vocab_fim_sep", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // bool llama_vocab_get_add_sep(const struct llama_vocab * vocab);
        static final class llama_vocab_get_add_sep {
            static final MethodHandle H =
                    downcall("llama_vocab_get_add_sep", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
        }
        // enum llama_pooling_type llama_pooling_type(const struct llama_context * ctx);
        static final class llama_pooling_type {
            static final MethodHandle H = downcall("llama_pooling_type", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // uint32_t llama_model_n_cls_out(const struct llama_model * model);
        static final class llama_model_n_cls_out {
            static final MethodHandle H = downcall("llama_model_n_cls_out", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // bool llama_vocab_is_eog(const struct llama_vocab * vocab, llama_token token);
        static final class llama_vocab_is_eog {
            static final MethodHandle H =
                    downcall("llama_vocab_is_eog", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, JAVA_INT));
        }
        // int32_t llama_tokenize(const struct llama_vocab * vocab, const char * text, int32_t text_len, llama_token *
        // tokens, int32_t n_tokens_max, bool add_special, bool parse_special);
        static final class llama_tokenize {
            static final MethodHandle H = downcall(
                    "llama_tokenize",
                    FunctionDescriptor.of(
                            JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, JAVA_BOOLEAN, JAVA_BOOLEAN));
        }
        // int32_t llama_token_to_piece(const struct llama_vocab * vocab, llama_token token, char * buf, int32_t length,
        // int32_t lstrip, bool special);
        static final class llama_token_to_piece {
            static final MethodHandle H = downcall(
                    "llama_token_to_piece",
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_BOOLEAN));
        }
        // int32_t llama_detokenize(const struct llama_vocab * vocab, const llama_token * tokens, int32_t n_tokens, char
        // * text, int32_t text_len_max, bool remove_special, bool unparse_special);
        static final class llama_detokenize {
            static final MethodHandle H = downcall(
                    "llama_detokenize",
                    FunctionDescriptor.of(
                            JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, JAVA_BOOLEAN, JAVA_BOOLEAN));
        }
        // struct llama_context_params llama_context_default_params(void);
        static final class llama_context_default_params {
            static final MethodHandle H =
                    downcall("llama_context_default_params", FunctionDescriptor.of(Structs.llama_context_params));
        }
        // struct llama_context * llama_init_from_model(struct llama_model * model, struct llama_context_params params);
        static final class llama_init_from_model {
            static final MethodHandle H = downcall(
                    "llama_init_from_model", FunctionDescriptor.of(ADDRESS, ADDRESS, Structs.llama_context_params));
        }
        // void llama_free(struct llama_context * ctx);
        static final class llama_free {
            static final MethodHandle H = downcall("llama_free", FunctionDescriptor.ofVoid(ADDRESS));
        }
        // uint32_t llama_n_ctx(const struct llama_context * ctx);
        static final class llama_n_ctx {
            static final MethodHandle H = downcall("llama_n_ctx", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // uint32_t llama_n_batch(const struct llama_context * ctx);
        static final class llama_n_batch {
            static final MethodHandle H = downcall("llama_n_batch", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // uint32_t llama_n_seq_max(const struct llama_context * ctx);
        static final class llama_n_seq_max {
            static final MethodHandle H = downcall("llama_n_seq_max", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // struct llama_batch llama_batch_init(int32_t n_tokens, int32_t embd, int32_t n_seq_max);
        static final class llama_batch_init {
            static final MethodHandle H = downcall(
                    "llama_batch_init", FunctionDescriptor.of(Structs.llama_batch, JAVA_INT, JAVA_INT, JAVA_INT));
        }
        // void llama_batch_free(struct llama_batch batch);
        static final class llama_batch_free {
            static final MethodHandle H = downcall("llama_batch_free", FunctionDescriptor.ofVoid(Structs.llama_batch));
        }
        // int32_t llama_decode(struct llama_context * ctx, struct llama_batch batch);
        static final class llama_decode {
            static final MethodHandle H =
                    downcall("llama_decode", FunctionDescriptor.of(JAVA_INT, ADDRESS, Structs.llama_batch));
        }
        // float * llama_get_logits_ith(struct llama_context * ctx, int32_t i);
        static final class llama_get_logits_ith {
            static final MethodHandle H =
                    downcall("llama_get_logits_ith", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        }
        // float * llama_get_embeddings_seq(struct llama_context * ctx, llama_seq_id seq_id);
        static final class llama_get_embeddings_seq {
            static final MethodHandle H =
                    downcall("llama_get_embeddings_seq", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        }
        // void llama_attach_threadpool(struct llama_context * ctx, ggml_threadpool_t threadpool, ggml_threadpool_t
        // threadpool_batch);
        static final class llama_attach_threadpool {
            static final MethodHandle H =
                    downcall("llama_attach_threadpool", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS));
        }
        // void llama_detach_threadpool(struct llama_context * ctx);
        static final class llama_detach_threadpool {
            static final MethodHandle H = downcall("llama_detach_threadpool", FunctionDescriptor.ofVoid(ADDRESS));
        }
        // ggml_backend_dev_t ggml_backend_dev_by_type(enum ggml_backend_dev_type type); // libggml
        static final class ggml_backend_dev_by_type {
            static final MethodHandle H =
                    downcall("ggml_backend_dev_by_type", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        }
        // ggml_backend_reg_t ggml_backend_dev_backend_reg(ggml_backend_dev_t device); // libggml-base
        static final class ggml_backend_dev_backend_reg {
            static final MethodHandle H =
                    downcall("ggml_backend_dev_backend_reg", FunctionDescriptor.of(ADDRESS, ADDRESS));
        }
        // void * ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char * name); // libggml-base
        static final class ggml_backend_reg_get_proc_address {
            static final MethodHandle H =
                    downcall("ggml_backend_reg_get_proc_address", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        }
        // void ggml_threadpool_params_init(struct ggml_threadpool_params * p, int n_threads); // libggml-base
        static final class ggml_threadpool_params_init {
            static final MethodHandle H =
                    downcall("ggml_threadpool_params_init", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
        }
        // llama_memory_t llama_get_memory(const struct llama_context * ctx);
        static final class llama_get_memory {
            static final MethodHandle H = downcall("llama_get_memory", FunctionDescriptor.of(ADDRESS, ADDRESS));
        }
        // void llama_memory_clear(llama_memory_t mem, bool data);
        static final class llama_memory_clear {
            static final MethodHandle H =
                    downcall("llama_memory_clear", FunctionDescriptor.ofVoid(ADDRESS, JAVA_BOOLEAN));
        }
        // bool llama_memory_seq_rm(llama_memory_t mem, llama_seq_id seq_id, llama_pos p0, llama_pos p1);
        static final class llama_memory_seq_rm {
            static final MethodHandle H = downcall(
                    "llama_memory_seq_rm", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT));
        }
        // void llama_memory_seq_cp(llama_memory_t mem, llama_seq_id seq_id_src, llama_seq_id seq_id_dst, llama_pos p0,
        // llama_pos p1);
        static final class llama_memory_seq_cp {
            static final MethodHandle H = downcall(
                    "llama_memory_seq_cp", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
        }
        // void llama_memory_seq_keep(llama_memory_t mem, llama_seq_id seq_id);
        static final class llama_memory_seq_keep {
            static final MethodHandle H =
                    downcall("llama_memory_seq_keep", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
        }
        // llama_pos llama_memory_seq_pos_max(llama_memory_t mem, llama_seq_id seq_id);
        static final class llama_memory_seq_pos_max {
            static final MethodHandle H =
                    downcall("llama_memory_seq_pos_max", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        }
        // size_t llama_state_seq_get_size_ext(struct llama_context * ctx, llama_seq_id seq_id, llama_state_seq_flags
        // flags);
        static final class llama_state_seq_get_size_ext {
            static final MethodHandle H = downcall(
                    "llama_state_seq_get_size_ext", FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_INT, JAVA_INT));
        }
        // size_t llama_state_seq_get_data_ext(struct llama_context * ctx, uint8_t * dst, size_t size, llama_seq_id
        // seq_id, llama_state_seq_flags flags);
        static final class llama_state_seq_get_data_ext {
            static final MethodHandle H = downcall(
                    "llama_state_seq_get_data_ext",
                    FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT));
        }
        // size_t llama_state_seq_set_data_ext(struct llama_context * ctx, const uint8_t * src, size_t size,
        // llama_seq_id dest_seq_id, llama_state_seq_flags flags);
        static final class llama_state_seq_set_data_ext {
            static final MethodHandle H = downcall(
                    "llama_state_seq_set_data_ext",
                    FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT));
        }
        // struct llama_sampler_chain_params llama_sampler_chain_default_params(void);
        static final class llama_sampler_chain_default_params {
            static final MethodHandle H = downcall(
                    "llama_sampler_chain_default_params", FunctionDescriptor.of(Structs.llama_sampler_chain_params));
        }
        // struct llama_sampler * llama_sampler_chain_init(struct llama_sampler_chain_params params);
        static final class llama_sampler_chain_init {
            static final MethodHandle H = downcall(
                    "llama_sampler_chain_init", FunctionDescriptor.of(ADDRESS, Structs.llama_sampler_chain_params));
        }
        // void llama_sampler_chain_add(struct llama_sampler * chain, struct llama_sampler * smpl); // the chain takes
        // ownership
        static final class llama_sampler_chain_add {
            static final MethodHandle H =
                    downcall("llama_sampler_chain_add", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        }
        // struct llama_sampler * llama_sampler_init_greedy(void);
        static final class llama_sampler_init_greedy {
            static final MethodHandle H = downcall("llama_sampler_init_greedy", FunctionDescriptor.of(ADDRESS));
        }
        // struct llama_sampler * llama_sampler_init_dist(uint32_t seed);
        static final class llama_sampler_init_dist {
            static final MethodHandle H = downcall("llama_sampler_init_dist", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        }
        // struct llama_sampler * llama_sampler_init_temp(float t);
        static final class llama_sampler_init_temp {
            static final MethodHandle H =
                    downcall("llama_sampler_init_temp", FunctionDescriptor.of(ADDRESS, JAVA_FLOAT));
        }
        // struct llama_sampler * llama_sampler_init_top_k(int32_t k);
        static final class llama_sampler_init_top_k {
            static final MethodHandle H =
                    downcall("llama_sampler_init_top_k", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        }
        // struct llama_sampler * llama_sampler_init_top_p(float p, size_t min_keep);
        static final class llama_sampler_init_top_p {
            static final MethodHandle H =
                    downcall("llama_sampler_init_top_p", FunctionDescriptor.of(ADDRESS, JAVA_FLOAT, JAVA_LONG));
        }
        // struct llama_sampler * llama_sampler_init_min_p(float p, size_t min_keep);
        static final class llama_sampler_init_min_p {
            static final MethodHandle H =
                    downcall("llama_sampler_init_min_p", FunctionDescriptor.of(ADDRESS, JAVA_FLOAT, JAVA_LONG));
        }
        // struct llama_sampler * llama_sampler_init_penalties(int32_t n_vocab, int32_t penalty_last_n, float
        // penalty_repeat, float penalty_freq, float penalty_present);
        static final class llama_sampler_init_penalties {
            static final MethodHandle H = downcall(
                    "llama_sampler_init_penalties",
                    FunctionDescriptor.of(ADDRESS, JAVA_INT, JAVA_INT, JAVA_FLOAT, JAVA_FLOAT, JAVA_FLOAT));
        }
        // struct llama_sampler * llama_sampler_init_logit_bias(int32_t n_vocab, int32_t n_logit_bias, const
        // llama_logit_bias * logit_bias);
        static final class llama_sampler_init_logit_bias {
            static final MethodHandle H = downcall(
                    "llama_sampler_init_logit_bias", FunctionDescriptor.of(ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
        }
        // struct llama_sampler * llama_sampler_init_grammar(const struct llama_vocab * vocab, const char * grammar_str,
        // const char * grammar_root); // NULL when the grammar does not parse
        static final class llama_sampler_init_grammar {
            static final MethodHandle H =
                    downcall("llama_sampler_init_grammar", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        }
        // struct llama_sampler * llama_sampler_init_grammar_lazy_patterns(const struct llama_vocab * vocab, const char
        // * grammar_str, const char * grammar_root, const char ** trigger_patterns, size_t num_trigger_patterns, const
        // llama_token * trigger_tokens, size_t num_trigger_tokens);
        static final class llama_sampler_init_grammar_lazy_patterns {
            static final MethodHandle H = downcall(
                    "llama_sampler_init_grammar_lazy_patterns",
                    FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG));
        }
        // llama_token llama_sampler_sample(struct llama_sampler * smpl, struct llama_context * ctx, int32_t idx);
        static final class llama_sampler_sample {
            static final MethodHandle H =
                    downcall("llama_sampler_sample", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        }
        // void llama_sampler_accept(struct llama_sampler * smpl, llama_token token);
        static final class llama_sampler_accept {
            static final MethodHandle H =
                    downcall("llama_sampler_accept", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
        }
        // struct llama_sampler * llama_sampler_init(struct llama_sampler_i * iface, llama_sampler_context_t ctx);
        static final class llama_sampler_init {
            static final MethodHandle H =
                    downcall("llama_sampler_init", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        }
        // void llama_sampler_apply(struct llama_sampler * smpl, llama_token_data_array * cur_p);
        static final class llama_sampler_apply {
            static final MethodHandle H = downcall("llama_sampler_apply", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        }
        // void llama_sampler_reset(struct llama_sampler * smpl);
        static final class llama_sampler_reset {
            static final MethodHandle H = downcall("llama_sampler_reset", FunctionDescriptor.ofVoid(ADDRESS));
        }
        // void llama_sampler_free(struct llama_sampler * smpl);
        static final class llama_sampler_free {
            static final MethodHandle H = downcall("llama_sampler_free", FunctionDescriptor.ofVoid(ADDRESS));
        }
        // struct llama_model_quantize_params llama_model_quantize_default_params(void);
        static final class llama_model_quantize_default_params {
            static final MethodHandle H = downcall(
                    "llama_model_quantize_default_params", FunctionDescriptor.of(Structs.llama_model_quantize_params));
        }
        // uint32_t llama_model_quantize(const char * fname_inp, const char * fname_out, const
        // llama_model_quantize_params * params); // 0 on success
        static final class llama_model_quantize {
            static final MethodHandle H =
                    downcall("llama_model_quantize", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        }
    }

    /**
     * The CPU backend's threadpool functions, which {@code libggml-cpu} exports only through
     * {@code ggml_backend_reg_get_proc_address}: handles without an address, called with the one
     * that lookup returns. Made on first use, as the others.
     */
    private static final class ProcHandles {
        // struct ggml_threadpool * ggml_threadpool_new(struct ggml_threadpool_params * params); // the CPU backend, by
        // its proc address
        static final class ggml_threadpool_new {
            static final MethodHandle H = counted(
                    "ggml_threadpool_new",
                    Linker.nativeLinker().downcallHandle(FunctionDescriptor.of(ADDRESS, ADDRESS)));
        }
        // void ggml_threadpool_pause(struct ggml_threadpool * threadpool); // the CPU backend, by its proc address
        static final class ggml_threadpool_pause {
            static final MethodHandle H = counted(
                    "ggml_threadpool_pause", Linker.nativeLinker().downcallHandle(FunctionDescriptor.ofVoid(ADDRESS)));
        }
        // void ggml_threadpool_free(struct ggml_threadpool * threadpool); // the CPU backend, by its proc address
        static final class ggml_threadpool_free {
            static final MethodHandle H = counted(
                    "ggml_threadpool_free", Linker.nativeLinker().downcallHandle(FunctionDescriptor.ofVoid(ADDRESS)));
        }
    }

    /** {@code void llama_backend_init(void);} */
    public static void llama_backend_init() {
        try {
            Handles.llama_backend_init.H.invokeExact();
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_backend_free(void);} */
    public static void llama_backend_free() {
        try {
            Handles.llama_backend_free.H.invokeExact();
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void ggml_backend_load_all_from_path(const char * dir_path);} */
    public static void ggml_backend_load_all_from_path(MemorySegment dir_path) {
        try {
            Handles.ggml_backend_load_all_from_path.H.invokeExact(dir_path);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code ggml_backend_reg_t ggml_backend_load(const char * path);} NULL when the library is not a usable backend. */
    public static MemorySegment ggml_backend_load(MemorySegment path) {
        try {
            return (MemorySegment) Handles.ggml_backend_load.H.invokeExact(path);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_log_set(ggml_log_callback log_callback, void * user_data);} */
    public static void llama_log_set(MemorySegment log_callback, MemorySegment user_data) {
        try {
            Handles.llama_log_set.H.invokeExact(log_callback, user_data);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code const char * llama_print_system_info(void);} */
    public static MemorySegment llama_print_system_info() {
        try {
            return (MemorySegment) Handles.llama_print_system_info.H.invokeExact();
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code const char * llama_version(void);} */
    public static MemorySegment llama_version() {
        try {
            return (MemorySegment) Handles.llama_version.H.invokeExact();
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code size_t llama_max_parallel_sequences(void);} */
    public static long llama_max_parallel_sequences() {
        try {
            return (long) Handles.llama_max_parallel_sequences.H.invokeExact();
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_model_params llama_model_default_params(void);} */
    public static MemorySegment llama_model_default_params(SegmentAllocator allocator) {
        try {
            return (MemorySegment) Handles.llama_model_default_params.H.invokeExact(allocator);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_model * llama_model_load_from_file(const char * path_model, struct llama_model_params params);} */
    public static MemorySegment llama_model_load_from_file(MemorySegment path_model, MemorySegment params) {
        try {
            return (MemorySegment) Handles.llama_model_load_from_file.H.invokeExact(path_model, params);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_model_free(struct llama_model * model);} */
    public static void llama_model_free(MemorySegment model) {
        try {
            Handles.llama_model_free.H.invokeExact(model);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_adapter_lora * llama_adapter_lora_init(struct llama_model * model, const char * path_lora);} */
    public static MemorySegment llama_adapter_lora_init(MemorySegment model, MemorySegment path_lora) {
        try {
            return (MemorySegment) Handles.llama_adapter_lora_init.H.invokeExact(model, path_lora);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /**
     * {@code int32_t llama_set_adapters_lora(struct llama_context * ctx, struct llama_adapter_lora ** adapters,
     * size_t n_adapters, float * scales);}
     */
    public static int llama_set_adapters_lora(
            MemorySegment ctx, MemorySegment adapters, long n_adapters, MemorySegment scales) {
        try {
            return (int) Handles.llama_set_adapters_lora.H.invokeExact(ctx, adapters, n_adapters, scales);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t llama_model_meta_count(const struct llama_model * model);} */
    public static int llama_model_meta_count(MemorySegment model) {
        try {
            return (int) Handles.llama_model_meta_count.H.invokeExact(model);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t llama_model_meta_key_by_index(const struct llama_model * model, int32_t i, char * buf, size_t buf_size);} */
    public static int llama_model_meta_key_by_index(MemorySegment model, int i, MemorySegment buf, long buf_size) {
        try {
            return (int) Handles.llama_model_meta_key_by_index.H.invokeExact(model, i, buf, buf_size);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t llama_model_meta_val_str_by_index(const struct llama_model * model, int32_t i, char * buf, size_t buf_size);} */
    public static int llama_model_meta_val_str_by_index(MemorySegment model, int i, MemorySegment buf, long buf_size) {
        try {
            return (int) Handles.llama_model_meta_val_str_by_index.H.invokeExact(model, i, buf, buf_size);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t llama_model_meta_val_str(const struct llama_model * model, const char * key, char * buf, size_t buf_size);} */
    public static int llama_model_meta_val_str(
            MemorySegment model, MemorySegment key, MemorySegment buf, long buf_size) {
        try {
            return (int) Handles.llama_model_meta_val_str.H.invokeExact(model, key, buf, buf_size);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t llama_model_desc(const struct llama_model * model, char * buf, size_t buf_size);} */
    public static int llama_model_desc(MemorySegment model, MemorySegment buf, long buf_size) {
        try {
            return (int) Handles.llama_model_desc.H.invokeExact(model, buf, buf_size);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code uint64_t llama_model_size(const struct llama_model * model);} */
    public static long llama_model_size(MemorySegment model) {
        try {
            return (long) Handles.llama_model_size.H.invokeExact(model);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code uint64_t llama_model_n_params(const struct llama_model * model);} */
    public static long llama_model_n_params(MemorySegment model) {
        try {
            return (long) Handles.llama_model_n_params.H.invokeExact(model);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t llama_model_n_ctx_train(const struct llama_model * model);} */
    public static int llama_model_n_ctx_train(MemorySegment model) {
        try {
            return (int) Handles.llama_model_n_ctx_train.H.invokeExact(model);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t llama_model_n_embd(const struct llama_model * model);} */
    public static int llama_model_n_embd(MemorySegment model) {
        try {
            return (int) Handles.llama_model_n_embd.H.invokeExact(model);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t llama_model_n_layer(const struct llama_model * model);} */
    public static int llama_model_n_layer(MemorySegment model) {
        try {
            return (int) Handles.llama_model_n_layer.H.invokeExact(model);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code const char * llama_model_chat_template(const struct llama_model * model, const char * name);} */
    public static MemorySegment llama_model_chat_template(MemorySegment model, MemorySegment name) {
        try {
            return (MemorySegment) Handles.llama_model_chat_template.H.invokeExact(model, name);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /**
     * {@code int32_t llama_chat_apply_template(const char * tmpl, const struct llama_chat_message * chat, size_t n_msg, bool add_ass, char * buf, int32_t length);}
     * The formatted length (copied into {@code buf} up to {@code length} bytes, not NUL-terminated when it fills it); -1 for a template it does not know.
     */
    public static int llama_chat_apply_template(
            MemorySegment tmpl, MemorySegment chat, long n_msg, boolean add_ass, MemorySegment buf, int length) {
        try {
            return (int) Handles.llama_chat_apply_template.H.invokeExact(tmpl, chat, n_msg, add_ass, buf, length);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t llama_chat_builtin_templates(const char ** output, size_t len);} The number of names, of which the first {@code len} are written. */
    public static int llama_chat_builtin_templates(MemorySegment output, long len) {
        try {
            return (int) Handles.llama_chat_builtin_templates.H.invokeExact(output, len);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code const struct llama_vocab * llama_model_get_vocab(const struct llama_model * model);} */
    public static MemorySegment llama_model_get_vocab(MemorySegment model) {
        try {
            return (MemorySegment) Handles.llama_model_get_vocab.H.invokeExact(model);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code enum llama_vocab_type llama_vocab_type(const struct llama_vocab * vocab);} */
    public static int llama_vocab_type(MemorySegment vocab) {
        try {
            return (int) Handles.llama_vocab_type.H.invokeExact(vocab);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code const char * llama_vocab_get_text(const struct llama_vocab * vocab, llama_token token);} */
    public static MemorySegment llama_vocab_get_text(MemorySegment vocab, int token) {
        try {
            return (MemorySegment) Handles.llama_vocab_get_text.H.invokeExact(vocab, token);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t llama_vocab_n_tokens(const struct llama_vocab * vocab);} */
    public static int llama_vocab_n_tokens(MemorySegment vocab) {
        try {
            return (int) Handles.llama_vocab_n_tokens.H.invokeExact(vocab);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code bool llama_vocab_get_add_bos(const struct llama_vocab * vocab);} */
    public static boolean llama_vocab_get_add_bos(MemorySegment vocab) {
        try {
            return (boolean) Handles.llama_vocab_get_add_bos.H.invokeExact(vocab);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code bool llama_vocab_get_add_eos(const struct llama_vocab * vocab);} */
    public static boolean llama_vocab_get_add_eos(MemorySegment vocab) {
        try {
            return (boolean) Handles.llama_vocab_get_add_eos.H.invokeExact(vocab);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code llama_token llama_vocab_bos(const struct llama_vocab * vocab);} */
    public static int llama_vocab_bos(MemorySegment vocab) {
        try {
            return (int) Handles.llama_vocab_bos.H.invokeExact(vocab);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code llama_token llama_vocab_eos(const struct llama_vocab * vocab);} */
    public static int llama_vocab_eos(MemorySegment vocab) {
        try {
            return (int) Handles.llama_vocab_eos.H.invokeExact(vocab);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code llama_token llama_vocab_eot(const struct llama_vocab * vocab);} */
    public static int llama_vocab_eot(MemorySegment vocab) {
        try {
            return (int) Handles.llama_vocab_eot.H.invokeExact(vocab);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code llama_token llama_vocab_sep(const struct llama_vocab * vocab);} */
    public static int llama_vocab_sep(MemorySegment vocab) {
        try {
            return (int) Handles.llama_vocab_sep.H.invokeExact(vocab);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code llama_token llama_vocab_fim_pre(const struct llama_vocab * vocab);} */
    public static int llama_vocab_fim_pre(MemorySegment vocab) {
        try {
            return (int) Handles.llama_vocab_fim_pre.H.invokeExact(vocab);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code llama_token llama_vocab_fim_suf(const struct llama_vocab * vocab);} */
    public static int llama_vocab_fim_suf(MemorySegment vocab) {
        try {
            return (int) Handles.llama_vocab_fim_suf.H.invokeExact(vocab);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code llama_token llama_vocab_fim_mid(const struct llama_vocab * vocab);} */
    public static int llama_vocab_fim_mid(MemorySegment vocab) {
        try {
            return (int) Handles.llama_vocab_fim_mid.H.invokeExact(vocab);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code llama_token llama_vocab_fim_rep(const struct llama_vocab * vocab);} */
    public static int llama_vocab_fim_rep(MemorySegment vocab) {
        try {
            return (int) Handles.llama_vocab_fim_rep.H.invokeExact(vocab);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code llama_token llama_vocab_fim_sep(const struct llama_vocab * vocab);} */
    public static int llama_vocab_fim_sep(MemorySegment vocab) {
        try {
            return (int) Handles.llama_vocab_fim_sep.H.invokeExact(vocab);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code bool llama_vocab_get_add_sep(const struct llama_vocab * vocab);} */
    public static boolean llama_vocab_get_add_sep(MemorySegment vocab) {
        try {
            return (boolean) Handles.llama_vocab_get_add_sep.H.invokeExact(vocab);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code enum llama_pooling_type llama_pooling_type(const struct llama_context * ctx);} */
    public static int llama_pooling_type(MemorySegment ctx) {
        try {
            return (int) Handles.llama_pooling_type.H.invokeExact(ctx);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code uint32_t llama_model_n_cls_out(const struct llama_model * model);} */
    public static int llama_model_n_cls_out(MemorySegment model) {
        try {
            return (int) Handles.llama_model_n_cls_out.H.invokeExact(model);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code bool llama_vocab_is_eog(const struct llama_vocab * vocab, llama_token token);} */
    public static boolean llama_vocab_is_eog(MemorySegment vocab, int token) {
        try {
            return (boolean) Handles.llama_vocab_is_eog.H.invokeExact(vocab, token);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t llama_tokenize(const struct llama_vocab * vocab, const char * text, int32_t text_len, llama_token * tokens, int32_t n_tokens_max, bool add_special, bool parse_special);} */
    public static int llama_tokenize(
            MemorySegment vocab,
            MemorySegment text,
            int text_len,
            MemorySegment tokens,
            int n_tokens_max,
            boolean add_special,
            boolean parse_special) {
        try {
            return (int) Handles.llama_tokenize.H.invokeExact(
                    vocab, text, text_len, tokens, n_tokens_max, add_special, parse_special);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t llama_token_to_piece(const struct llama_vocab * vocab, llama_token token, char * buf, int32_t length, int32_t lstrip, bool special);} */
    public static int llama_token_to_piece(
            MemorySegment vocab, int token, MemorySegment buf, int length, int lstrip, boolean special) {
        try {
            return (int) Handles.llama_token_to_piece.H.invokeExact(vocab, token, buf, length, lstrip, special);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t llama_detokenize(const struct llama_vocab * vocab, const llama_token * tokens, int32_t n_tokens, char * text, int32_t text_len_max, bool remove_special, bool unparse_special);} */
    public static int llama_detokenize(
            MemorySegment vocab,
            MemorySegment tokens,
            int n_tokens,
            MemorySegment text,
            int text_len_max,
            boolean remove_special,
            boolean unparse_special) {
        try {
            return (int) Handles.llama_detokenize.H.invokeExact(
                    vocab, tokens, n_tokens, text, text_len_max, remove_special, unparse_special);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_context_params llama_context_default_params(void);} */
    public static MemorySegment llama_context_default_params(SegmentAllocator allocator) {
        try {
            return (MemorySegment) Handles.llama_context_default_params.H.invokeExact(allocator);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_context * llama_init_from_model(struct llama_model * model, struct llama_context_params params);} */
    public static MemorySegment llama_init_from_model(MemorySegment model, MemorySegment params) {
        try {
            return (MemorySegment) Handles.llama_init_from_model.H.invokeExact(model, params);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_free(struct llama_context * ctx);} */
    public static void llama_free(MemorySegment ctx) {
        try {
            Handles.llama_free.H.invokeExact(ctx);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code uint32_t llama_n_ctx(const struct llama_context * ctx);} */
    public static int llama_n_ctx(MemorySegment ctx) {
        try {
            return (int) Handles.llama_n_ctx.H.invokeExact(ctx);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code uint32_t llama_n_batch(const struct llama_context * ctx);} */
    public static int llama_n_batch(MemorySegment ctx) {
        try {
            return (int) Handles.llama_n_batch.H.invokeExact(ctx);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code uint32_t llama_n_seq_max(const struct llama_context * ctx);} */
    public static int llama_n_seq_max(MemorySegment ctx) {
        try {
            return (int) Handles.llama_n_seq_max.H.invokeExact(ctx);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_batch llama_batch_init(int32_t n_tokens, int32_t embd, int32_t n_seq_max);} */
    public static MemorySegment llama_batch_init(SegmentAllocator allocator, int n_tokens, int embd, int n_seq_max) {
        try {
            return (MemorySegment) Handles.llama_batch_init.H.invokeExact(allocator, n_tokens, embd, n_seq_max);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_batch_free(struct llama_batch batch);} */
    public static void llama_batch_free(MemorySegment batch) {
        try {
            Handles.llama_batch_free.H.invokeExact(batch);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code int32_t llama_decode(struct llama_context * ctx, struct llama_batch batch);} */
    public static int llama_decode(MemorySegment ctx, MemorySegment batch) {
        try {
            return (int) Handles.llama_decode.H.invokeExact(ctx, batch);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /**
     * {@code float * llama_get_logits_ith(struct llama_context * ctx, int32_t i);} The row of
     * {@code n_vocab} logits of batch index {@code i}; NULL (and an error logged) when it has none.
     */
    public static MemorySegment llama_get_logits_ith(MemorySegment ctx, int i) {
        try {
            return (MemorySegment) Handles.llama_get_logits_ith.H.invokeExact(ctx, i);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code float * llama_get_embeddings_seq(struct llama_context * ctx, llama_seq_id seq_id);} */
    public static MemorySegment llama_get_embeddings_seq(MemorySegment ctx, int seq_id) {
        try {
            return (MemorySegment) Handles.llama_get_embeddings_seq.H.invokeExact(ctx, seq_id);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_attach_threadpool(struct llama_context * ctx, ggml_threadpool_t threadpool, ggml_threadpool_t threadpool_batch);} */
    public static void llama_attach_threadpool(
            MemorySegment ctx, MemorySegment threadpool, MemorySegment threadpool_batch) {
        try {
            Handles.llama_attach_threadpool.H.invokeExact(ctx, threadpool, threadpool_batch);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_detach_threadpool(struct llama_context * ctx);} */
    public static void llama_detach_threadpool(MemorySegment ctx) {
        try {
            Handles.llama_detach_threadpool.H.invokeExact(ctx);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code ggml_backend_dev_t ggml_backend_dev_by_type(enum ggml_backend_dev_type type);} NULL when no device has the type. */
    public static MemorySegment ggml_backend_dev_by_type(int type) {
        try {
            return (MemorySegment) Handles.ggml_backend_dev_by_type.H.invokeExact(type);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code ggml_backend_reg_t ggml_backend_dev_backend_reg(ggml_backend_dev_t device);} */
    public static MemorySegment ggml_backend_dev_backend_reg(MemorySegment device) {
        try {
            return (MemorySegment) Handles.ggml_backend_dev_backend_reg.H.invokeExact(device);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void * ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char * name);} NULL when the backend lacks it. */
    public static MemorySegment ggml_backend_reg_get_proc_address(MemorySegment reg, MemorySegment name) {
        try {
            return (MemorySegment) Handles.ggml_backend_reg_get_proc_address.H.invokeExact(reg, name);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void ggml_threadpool_params_init(struct ggml_threadpool_params * p, int n_threads);} */
    public static void ggml_threadpool_params_init(MemorySegment p, int n_threads) {
        try {
            Handles.ggml_threadpool_params_init.H.invokeExact(p, n_threads);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /**
     * {@code struct ggml_threadpool * ggml_threadpool_new(struct ggml_threadpool_params * params);},
     * called through {@code function}, the address the CPU backend gave for it.
     */
    public static MemorySegment ggml_threadpool_new(MemorySegment function, MemorySegment params) {
        try {
            return (MemorySegment) ProcHandles.ggml_threadpool_new.H.invokeExact(function, params);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void ggml_threadpool_pause(struct ggml_threadpool * threadpool);}, through the CPU backend's address for it. */
    public static void ggml_threadpool_pause(MemorySegment function, MemorySegment threadpool) {
        try {
            ProcHandles.ggml_threadpool_pause.H.invokeExact(function, threadpool);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void ggml_threadpool_free(struct ggml_threadpool * threadpool);}, through the CPU backend's address for it. */
    public static void ggml_threadpool_free(MemorySegment function, MemorySegment threadpool) {
        try {
            ProcHandles.ggml_threadpool_free.H.invokeExact(function, threadpool);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code llama_memory_t llama_get_memory(const struct llama_context * ctx);} */
    public static MemorySegment llama_get_memory(MemorySegment ctx) {
        try {
            return (MemorySegment) Handles.llama_get_memory.H.invokeExact(ctx);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_memory_clear(llama_memory_t mem, bool data);} */
    public static void llama_memory_clear(MemorySegment mem, boolean data) {
        try {
            Handles.llama_memory_clear.H.invokeExact(mem, data);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code bool llama_memory_seq_rm(llama_memory_t mem, llama_seq_id seq_id, llama_pos p0, llama_pos p1);} */
    public static boolean llama_memory_seq_rm(MemorySegment mem, int seq_id, int p0, int p1) {
        try {
            return (boolean) Handles.llama_memory_seq_rm.H.invokeExact(mem, seq_id, p0, p1);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_memory_seq_cp(llama_memory_t mem, llama_seq_id seq_id_src, llama_seq_id seq_id_dst, llama_pos p0, llama_pos p1);} */
    public static void llama_memory_seq_cp(MemorySegment mem, int seq_id_src, int seq_id_dst, int p0, int p1) {
        try {
            Handles.llama_memory_seq_cp.H.invokeExact(mem, seq_id_src, seq_id_dst, p0, p1);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_memory_seq_keep(llama_memory_t mem, llama_seq_id seq_id);} */
    public static void llama_memory_seq_keep(MemorySegment mem, int seq_id) {
        try {
            Handles.llama_memory_seq_keep.H.invokeExact(mem, seq_id);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code llama_pos llama_memory_seq_pos_max(llama_memory_t mem, llama_seq_id seq_id);} */
    public static int llama_memory_seq_pos_max(MemorySegment mem, int seq_id) {
        try {
            return (int) Handles.llama_memory_seq_pos_max.H.invokeExact(mem, seq_id);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code LLAMA_STATE_SEQ_FLAGS_NONE}: the whole sequence state, copied to and from host memory. */
    public static final int LLAMA_STATE_SEQ_FLAGS_NONE = 0;

    /** {@code size_t llama_state_seq_get_size_ext(struct llama_context * ctx, llama_seq_id seq_id, llama_state_seq_flags flags);} */
    public static long llama_state_seq_get_size_ext(MemorySegment ctx, int seq_id, int flags) {
        try {
            return (long) Handles.llama_state_seq_get_size_ext.H.invokeExact(ctx, seq_id, flags);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code size_t llama_state_seq_get_data_ext(struct llama_context * ctx, uint8_t * dst, size_t size, llama_seq_id seq_id, llama_state_seq_flags flags);} */
    public static long llama_state_seq_get_data_ext(
            MemorySegment ctx, MemorySegment dst, long size, int seq_id, int flags) {
        try {
            return (long) Handles.llama_state_seq_get_data_ext.H.invokeExact(ctx, dst, size, seq_id, flags);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code size_t llama_state_seq_set_data_ext(struct llama_context * ctx, const uint8_t * src, size_t size, llama_seq_id dest_seq_id, llama_state_seq_flags flags);} */
    public static long llama_state_seq_set_data_ext(
            MemorySegment ctx, MemorySegment src, long size, int dest_seq_id, int flags) {
        try {
            return (long) Handles.llama_state_seq_set_data_ext.H.invokeExact(ctx, src, size, dest_seq_id, flags);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler_chain_params llama_sampler_chain_default_params(void);} */
    public static MemorySegment llama_sampler_chain_default_params(SegmentAllocator allocator) {
        try {
            return (MemorySegment) Handles.llama_sampler_chain_default_params.H.invokeExact(allocator);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_chain_init(struct llama_sampler_chain_params params);} */
    public static MemorySegment llama_sampler_chain_init(MemorySegment params) {
        try {
            return (MemorySegment) Handles.llama_sampler_chain_init.H.invokeExact(params);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_sampler_chain_add(struct llama_sampler * chain, struct llama_sampler * smpl);} */
    public static void llama_sampler_chain_add(MemorySegment chain, MemorySegment smpl) {
        try {
            Handles.llama_sampler_chain_add.H.invokeExact(chain, smpl);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_greedy(void);} */
    public static MemorySegment llama_sampler_init_greedy() {
        try {
            return (MemorySegment) Handles.llama_sampler_init_greedy.H.invokeExact();
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_dist(uint32_t seed);} */
    public static MemorySegment llama_sampler_init_dist(int seed) {
        try {
            return (MemorySegment) Handles.llama_sampler_init_dist.H.invokeExact(seed);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_temp(float t);} */
    public static MemorySegment llama_sampler_init_temp(float t) {
        try {
            return (MemorySegment) Handles.llama_sampler_init_temp.H.invokeExact(t);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_top_k(int32_t k);} */
    public static MemorySegment llama_sampler_init_top_k(int k) {
        try {
            return (MemorySegment) Handles.llama_sampler_init_top_k.H.invokeExact(k);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_top_p(float p, size_t min_keep);} */
    public static MemorySegment llama_sampler_init_top_p(float p, long min_keep) {
        try {
            return (MemorySegment) Handles.llama_sampler_init_top_p.H.invokeExact(p, min_keep);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_min_p(float p, size_t min_keep);} */
    public static MemorySegment llama_sampler_init_min_p(float p, long min_keep) {
        try {
            return (MemorySegment) Handles.llama_sampler_init_min_p.H.invokeExact(p, min_keep);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_penalties(int32_t n_vocab, int32_t penalty_last_n, float penalty_repeat, float penalty_freq, float penalty_present);} */
    public static MemorySegment llama_sampler_init_penalties(
            int n_vocab, int penalty_last_n, float penalty_repeat, float penalty_freq, float penalty_present) {
        try {
            return (MemorySegment) Handles.llama_sampler_init_penalties.H.invokeExact(
                    n_vocab, penalty_last_n, penalty_repeat, penalty_freq, penalty_present);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_logit_bias(int32_t n_vocab, int32_t n_logit_bias, const llama_logit_bias * logit_bias);} */
    public static MemorySegment llama_sampler_init_logit_bias(int n_vocab, int n_logit_bias, MemorySegment logit_bias) {
        try {
            return (MemorySegment)
                    Handles.llama_sampler_init_logit_bias.H.invokeExact(n_vocab, n_logit_bias, logit_bias);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_grammar(const struct llama_vocab * vocab, const char * grammar_str, const char * grammar_root);} */
    public static MemorySegment llama_sampler_init_grammar(
            MemorySegment vocab, MemorySegment grammar_str, MemorySegment grammar_root) {
        try {
            return (MemorySegment) Handles.llama_sampler_init_grammar.H.invokeExact(vocab, grammar_str, grammar_root);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /**
     * {@code struct llama_sampler * llama_sampler_init_grammar_lazy_patterns(const struct llama_vocab * vocab, const char * grammar_str,
     * const char * grammar_root, const char ** trigger_patterns, size_t num_trigger_patterns, const llama_token * trigger_tokens,
     * size_t num_trigger_tokens);} NULL when the grammar does not parse.
     */
    public static MemorySegment llama_sampler_init_grammar_lazy_patterns(
            MemorySegment vocab,
            MemorySegment grammar_str,
            MemorySegment grammar_root,
            MemorySegment trigger_patterns,
            long num_trigger_patterns,
            MemorySegment trigger_tokens,
            long num_trigger_tokens) {
        try {
            return (MemorySegment) Handles.llama_sampler_init_grammar_lazy_patterns.H.invokeExact(
                    vocab,
                    grammar_str,
                    grammar_root,
                    trigger_patterns,
                    num_trigger_patterns,
                    trigger_tokens,
                    num_trigger_tokens);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code llama_token llama_sampler_sample(struct llama_sampler * smpl, struct llama_context * ctx, int32_t idx);} */
    public static int llama_sampler_sample(MemorySegment smpl, MemorySegment ctx, int idx) {
        try {
            return (int) Handles.llama_sampler_sample.H.invokeExact(smpl, ctx, idx);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_sampler_accept(struct llama_sampler * smpl, llama_token token);} */
    public static void llama_sampler_accept(MemorySegment smpl, int token) {
        try {
            Handles.llama_sampler_accept.H.invokeExact(smpl, token);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init(struct llama_sampler_i * iface, llama_sampler_context_t ctx);} */
    public static MemorySegment llama_sampler_init(MemorySegment iface, MemorySegment ctx) {
        try {
            return (MemorySegment) Handles.llama_sampler_init.H.invokeExact(iface, ctx);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_sampler_apply(struct llama_sampler * smpl, llama_token_data_array * cur_p);} */
    public static void llama_sampler_apply(MemorySegment smpl, MemorySegment curP) {
        try {
            Handles.llama_sampler_apply.H.invokeExact(smpl, curP);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_sampler_reset(struct llama_sampler * smpl);} */
    public static void llama_sampler_reset(MemorySegment smpl) {
        try {
            Handles.llama_sampler_reset.H.invokeExact(smpl);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void llama_sampler_free(struct llama_sampler * smpl);} */
    public static void llama_sampler_free(MemorySegment smpl) {
        try {
            Handles.llama_sampler_free.H.invokeExact(smpl);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_model_quantize_params llama_model_quantize_default_params(void);} */
    public static MemorySegment llama_model_quantize_default_params(SegmentAllocator allocator) {
        try {
            return (MemorySegment) Handles.llama_model_quantize_default_params.H.invokeExact(allocator);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code uint32_t llama_model_quantize(const char * fname_inp, const char * fname_out, const llama_model_quantize_params * params);} */
    public static int llama_model_quantize(MemorySegment fname_inp, MemorySegment fname_out, MemorySegment params) {
        try {
            return (int) Handles.llama_model_quantize.H.invokeExact(fname_inp, fname_out, params);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    // ---- Devices (ggml-backend.h): which compute devices the loaded backends offer, for GPU offload. ----

    /** The device functions: one holder class each, bound on first call, as {@code Handles}. */
    private static final class DeviceHandles {
        // size_t ggml_backend_dev_count(void); // libggml
        static final class ggml_backend_dev_count {
            static final MethodHandle H = downcall("ggml_backend_dev_count", FunctionDescriptor.of(JAVA_LONG));
        }
        // ggml_backend_dev_t ggml_backend_dev_get(size_t index); // libggml
        static final class ggml_backend_dev_get {
            static final MethodHandle H = downcall("ggml_backend_dev_get", FunctionDescriptor.of(ADDRESS, JAVA_LONG));
        }
        // ggml_backend_dev_t ggml_backend_dev_by_name(const char * name); // libggml
        static final class ggml_backend_dev_by_name {
            static final MethodHandle H = downcall("ggml_backend_dev_by_name", FunctionDescriptor.of(ADDRESS, ADDRESS));
        }
        // const char * ggml_backend_dev_name(ggml_backend_dev_t device); // libggml-base
        static final class ggml_backend_dev_name {
            static final MethodHandle H = downcall("ggml_backend_dev_name", FunctionDescriptor.of(ADDRESS, ADDRESS));
        }
        // const char * ggml_backend_dev_description(ggml_backend_dev_t device); // libggml-base
        static final class ggml_backend_dev_description {
            static final MethodHandle H =
                    downcall("ggml_backend_dev_description", FunctionDescriptor.of(ADDRESS, ADDRESS));
        }
        // void ggml_backend_dev_memory(ggml_backend_dev_t device, size_t * free, size_t * total); // libggml-base
        static final class ggml_backend_dev_memory {
            static final MethodHandle H =
                    downcall("ggml_backend_dev_memory", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS));
        }
        // enum ggml_backend_dev_type ggml_backend_dev_type(ggml_backend_dev_t device); // libggml-base
        static final class ggml_backend_dev_type {
            static final MethodHandle H = downcall("ggml_backend_dev_type", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }
        // size_t llama_max_devices(void);
        static final class llama_max_devices {
            static final MethodHandle H = downcall("llama_max_devices", FunctionDescriptor.of(JAVA_LONG));
        }
    }

    /** {@code size_t ggml_backend_dev_count(void);} */
    public static long ggml_backend_dev_count() {
        try {
            return (long) DeviceHandles.ggml_backend_dev_count.H.invokeExact();
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code ggml_backend_dev_t ggml_backend_dev_get(size_t index);} */
    public static MemorySegment ggml_backend_dev_get(long index) {
        try {
            return (MemorySegment) DeviceHandles.ggml_backend_dev_get.H.invokeExact(index);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code ggml_backend_dev_t ggml_backend_dev_by_name(const char * name);} NULL when there is none. */
    public static MemorySegment ggml_backend_dev_by_name(MemorySegment name) {
        try {
            return (MemorySegment) DeviceHandles.ggml_backend_dev_by_name.H.invokeExact(name);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code const char * ggml_backend_dev_name(ggml_backend_dev_t device);} */
    public static MemorySegment ggml_backend_dev_name(MemorySegment device) {
        try {
            return (MemorySegment) DeviceHandles.ggml_backend_dev_name.H.invokeExact(device);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code const char * ggml_backend_dev_description(ggml_backend_dev_t device);} */
    public static MemorySegment ggml_backend_dev_description(MemorySegment device) {
        try {
            return (MemorySegment) DeviceHandles.ggml_backend_dev_description.H.invokeExact(device);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code void ggml_backend_dev_memory(ggml_backend_dev_t device, size_t * free, size_t * total);} */
    public static void ggml_backend_dev_memory(MemorySegment device, MemorySegment free, MemorySegment total) {
        try {
            DeviceHandles.ggml_backend_dev_memory.H.invokeExact(device, free, total);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code enum ggml_backend_dev_type ggml_backend_dev_type(ggml_backend_dev_t device);} 0 CPU, 1 GPU, 2 IGPU, 3 ACCEL. */
    public static int ggml_backend_dev_type(MemorySegment device) {
        try {
            return (int) DeviceHandles.ggml_backend_dev_type.H.invokeExact(device);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code size_t llama_max_devices(void);} the length llama.cpp reads of {@code tensor_split}. */
    public static long llama_max_devices() {
        try {
            return (long) DeviceHandles.llama_max_devices.H.invokeExact();
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    // ------------------------------------------------------------- the sampler stages of llama-server's
    // "samplers" order that the chain binds besides top_k/top_p/min_p/temp/penalties (one block, so
    // that it merges apart from the loading code). Bound on first call, as Handles are.

    private static final class SamplerHandles {
        // struct llama_sampler * llama_sampler_init_typical(float p, size_t min_keep);
        static final class llama_sampler_init_typical {
            static final MethodHandle H =
                    downcall("llama_sampler_init_typical", FunctionDescriptor.of(ADDRESS, JAVA_FLOAT, JAVA_LONG));
        }
        // struct llama_sampler * llama_sampler_init_xtc(float p, float t, size_t min_keep, uint32_t seed);
        static final class llama_sampler_init_xtc {
            static final MethodHandle H = downcall(
                    "llama_sampler_init_xtc",
                    FunctionDescriptor.of(ADDRESS, JAVA_FLOAT, JAVA_FLOAT, JAVA_LONG, JAVA_INT));
        }
        // struct llama_sampler * llama_sampler_init_top_n_sigma(float n);
        static final class llama_sampler_init_top_n_sigma {
            static final MethodHandle H =
                    downcall("llama_sampler_init_top_n_sigma", FunctionDescriptor.of(ADDRESS, JAVA_FLOAT));
        }
        // struct llama_sampler * llama_sampler_init_mirostat(int32_t n_vocab, uint32_t seed, float tau, float eta,
        // int32_t m);
        static final class llama_sampler_init_mirostat {
            static final MethodHandle H = downcall(
                    "llama_sampler_init_mirostat",
                    FunctionDescriptor.of(ADDRESS, JAVA_INT, JAVA_INT, JAVA_FLOAT, JAVA_FLOAT, JAVA_INT));
        }
        // struct llama_sampler * llama_sampler_init_mirostat_v2(uint32_t seed, float tau, float eta);
        static final class llama_sampler_init_mirostat_v2 {
            static final MethodHandle H = downcall(
                    "llama_sampler_init_mirostat_v2", FunctionDescriptor.of(ADDRESS, JAVA_INT, JAVA_FLOAT, JAVA_FLOAT));
        }
        // struct llama_sampler * llama_sampler_init_dry(const struct llama_vocab * vocab, float dry_multiplier, float
        // dry_base, int32_t dry_allowed_length, int32_t dry_penalty_last_n, const char ** seq_breakers, size_t
        // num_breakers);
        static final class llama_sampler_init_dry {
            static final MethodHandle H = downcall(
                    "llama_sampler_init_dry",
                    FunctionDescriptor.of(
                            ADDRESS, ADDRESS, JAVA_FLOAT, JAVA_FLOAT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG));
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_typical(float p, size_t min_keep);} */
    public static MemorySegment llama_sampler_init_typical(float p, long min_keep) {
        try {
            return (MemorySegment) SamplerHandles.llama_sampler_init_typical.H.invokeExact(p, min_keep);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_xtc(float p, float t, size_t min_keep, uint32_t seed);} */
    public static MemorySegment llama_sampler_init_xtc(float p, float t, long min_keep, int seed) {
        try {
            return (MemorySegment) SamplerHandles.llama_sampler_init_xtc.H.invokeExact(p, t, min_keep, seed);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_top_n_sigma(float n);} */
    public static MemorySegment llama_sampler_init_top_n_sigma(float n) {
        try {
            return (MemorySegment) SamplerHandles.llama_sampler_init_top_n_sigma.H.invokeExact(n);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_mirostat(int32_t n_vocab, uint32_t seed, float tau, float eta, int32_t m);} */
    public static MemorySegment llama_sampler_init_mirostat(int n_vocab, int seed, float tau, float eta, int m) {
        try {
            return (MemorySegment) SamplerHandles.llama_sampler_init_mirostat.H.invokeExact(n_vocab, seed, tau, eta, m);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_mirostat_v2(uint32_t seed, float tau, float eta);} */
    public static MemorySegment llama_sampler_init_mirostat_v2(int seed, float tau, float eta) {
        try {
            return (MemorySegment) SamplerHandles.llama_sampler_init_mirostat_v2.H.invokeExact(seed, tau, eta);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }

    /** {@code struct llama_sampler * llama_sampler_init_dry(const struct llama_vocab * vocab, float dry_multiplier, float dry_base, int32_t dry_allowed_length, int32_t dry_penalty_last_n, const char ** seq_breakers, size_t num_breakers);} */
    public static MemorySegment llama_sampler_init_dry(
            MemorySegment vocab,
            float dry_multiplier,
            float dry_base,
            int dry_allowed_length,
            int dry_penalty_last_n,
            MemorySegment seq_breakers,
            long num_breakers) {
        try {
            return (MemorySegment) SamplerHandles.llama_sampler_init_dry.H.invokeExact(
                    vocab,
                    dry_multiplier,
                    dry_base,
                    dry_allowed_length,
                    dry_penalty_last_n,
                    seq_breakers,
                    num_breakers);
        } catch (Throwable failure) {
            throw rethrow(failure);
        }
    }
}
