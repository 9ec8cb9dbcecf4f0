package forge.backend.llamacpp.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * The C structs of {@code llama.h} (release v0.5.0) that the binding reads or writes, laid out for
 * x86-64 Linux. Every layout is named like its struct and every member like its field, so that
 * {@code StructsTest} can compare each size and offset with what a C compiler reports for the real
 * header: a field added upstream fails the build instead of corrupting memory.
 */
public final class Structs {
    private Structs() {}

    /** {@code size_t}: 64-bit on every platform the natives ship for. */
    static final ValueLayout.OfLong SIZE_T = JAVA_LONG;

    /** {@code struct llama_model_params}, 80 bytes. */
    public static final StructLayout llama_model_params = MemoryLayout.structLayout(
                    ADDRESS.withName("devices"), // ggml_backend_dev_t *
                    ADDRESS.withName("tensor_buft_overrides"), // const struct llama_model_tensor_buft_override *
                    JAVA_INT.withName("n_gpu_layers"),
                    JAVA_INT.withName("split_mode"), // enum llama_split_mode
                    JAVA_INT.withName("load_mode"), // enum llama_load_mode
                    JAVA_INT.withName("lazy_mode"), // enum llama_lazy_mode
                    JAVA_INT.withName("main_gpu"),
                    MemoryLayout.paddingLayout(4),
                    ADDRESS.withName("tensor_split"), // const float *
                    ADDRESS.withName("progress_callback"), // llama_progress_callback
                    ADDRESS.withName("progress_callback_user_data"),
                    ADDRESS.withName("kv_overrides"), // const struct llama_model_kv_override *
                    JAVA_BOOLEAN.withName("vocab_only"),
                    JAVA_BOOLEAN.withName("check_tensors"),
                    JAVA_BOOLEAN.withName("use_extra_bufts"),
                    JAVA_BOOLEAN.withName("no_host"),
                    JAVA_BOOLEAN.withName("no_alloc"),
                    JAVA_BOOLEAN.withName("load_mtp"),
                    MemoryLayout.paddingLayout(2))
            .withName("llama_model_params");

    /** {@code struct llama_context_params}, 160 bytes. */
    public static final StructLayout llama_context_params = MemoryLayout.structLayout(
                    JAVA_INT.withName("n_ctx"),
                    JAVA_INT.withName("n_batch"),
                    JAVA_INT.withName("n_ubatch"),
                    JAVA_INT.withName("n_seq_max"),
                    JAVA_INT.withName("n_rs_seq"),
                    JAVA_INT.withName("n_outputs_max"),
                    JAVA_INT.withName("n_outputs_max_per_seq"),
                    JAVA_INT.withName("n_threads"),
                    JAVA_INT.withName("n_threads_batch"),
                    JAVA_INT.withName("ctx_type"), // enum llama_context_type
                    JAVA_INT.withName("rope_scaling_type"), // enum llama_rope_scaling_type
                    JAVA_INT.withName("pooling_type"), // enum llama_pooling_type
                    JAVA_INT.withName("attention_type"), // enum llama_attention_type
                    JAVA_INT.withName("flash_attn_type"), // enum llama_flash_attn_type
                    JAVA_FLOAT.withName("rope_freq_base"),
                    JAVA_FLOAT.withName("rope_freq_scale"),
                    JAVA_FLOAT.withName("yarn_ext_factor"),
                    JAVA_FLOAT.withName("yarn_attn_factor"),
                    JAVA_FLOAT.withName("yarn_beta_fast"),
                    JAVA_FLOAT.withName("yarn_beta_slow"),
                    JAVA_INT.withName("yarn_orig_ctx"),
                    JAVA_FLOAT.withName("defrag_thold"),
                    ADDRESS.withName("cb_eval"), // ggml_backend_sched_eval_callback
                    ADDRESS.withName("cb_eval_user_data"),
                    JAVA_INT.withName("type_k"), // enum ggml_type
                    JAVA_INT.withName("type_v"), // enum ggml_type
                    ADDRESS.withName("abort_callback"), // ggml_abort_callback
                    ADDRESS.withName("abort_callback_data"),
                    JAVA_BOOLEAN.withName("embeddings"),
                    JAVA_BOOLEAN.withName("offload_kqv"),
                    JAVA_BOOLEAN.withName("no_perf"),
                    JAVA_BOOLEAN.withName("op_offload"),
                    JAVA_BOOLEAN.withName("swa_full"),
                    JAVA_BOOLEAN.withName("kv_unified"),
                    MemoryLayout.paddingLayout(2),
                    ADDRESS.withName("samplers"), // struct llama_sampler_seq_config *
                    SIZE_T.withName("n_samplers"),
                    ADDRESS.withName("ctx_other") // struct llama_context *
                    )
            .withName("llama_context_params");

    /** {@code struct llama_batch}, 56 bytes: passed to {@code llama_decode} by value. */
    public static final StructLayout llama_batch = MemoryLayout.structLayout(
                    JAVA_INT.withName("n_tokens"),
                    MemoryLayout.paddingLayout(4),
                    ADDRESS.withName("token"), // llama_token *
                    ADDRESS.withName("embd"), // float *
                    ADDRESS.withName("pos"), // llama_pos *
                    ADDRESS.withName("n_seq_id"), // int32_t *
                    ADDRESS.withName("seq_id"), // llama_seq_id **
                    ADDRESS.withName("logits") // int8_t *
                    )
            .withName("llama_batch");

    /** {@code struct llama_sampler_chain_params}, 1 byte. */
    public static final StructLayout llama_sampler_chain_params =
            MemoryLayout.structLayout(JAVA_BOOLEAN.withName("no_perf")).withName("llama_sampler_chain_params");

    /** {@code struct llama_model_quantize_params}, 64 bytes. */
    public static final StructLayout llama_model_quantize_params = MemoryLayout.structLayout(
                    JAVA_INT.withName("nthread"),
                    JAVA_INT.withName("ftype"), // enum llama_ftype
                    JAVA_INT.withName("output_tensor_type"), // enum ggml_type
                    JAVA_INT.withName("token_embedding_type"), // enum ggml_type
                    JAVA_BOOLEAN.withName("allow_requantize"),
                    JAVA_BOOLEAN.withName("quantize_output_tensor"),
                    JAVA_BOOLEAN.withName("only_copy"),
                    JAVA_BOOLEAN.withName("pure"),
                    JAVA_BOOLEAN.withName("keep_split"),
                    JAVA_BOOLEAN.withName("dry_run"),
                    MemoryLayout.paddingLayout(2),
                    ADDRESS.withName("imatrix"), // const struct llama_model_imatrix_data *
                    ADDRESS.withName("kv_overrides"), // const struct llama_model_kv_override *
                    ADDRESS.withName("tt_overrides"), // const struct llama_model_tensor_override *
                    ADDRESS.withName("prune_layers"), // const int32_t *
                    SIZE_T.withName("max_buf_size"))
            .withName("llama_model_quantize_params");

    /** {@code struct llama_logit_bias}, 8 bytes. */
    public static final StructLayout llama_logit_bias = MemoryLayout.structLayout(
                    JAVA_INT.withName("token"), // llama_token
                    JAVA_FLOAT.withName("bias"))
            .withName("llama_logit_bias");

    /** {@code struct ggml_threadpool_params} of {@code ggml.h}, 528 bytes: filled by {@code ggml_threadpool_params_init}. */
    public static final StructLayout ggml_threadpool_params = MemoryLayout.structLayout(
                    MemoryLayout.sequenceLayout(512, JAVA_BOOLEAN).withName("cpumask"), // bool[GGML_MAX_N_THREADS]
                    JAVA_INT.withName("n_threads"),
                    JAVA_INT.withName("prio"), // enum ggml_sched_priority
                    JAVA_INT.withName("poll"), // uint32_t, 0 (none) .. 100 (aggressive)
                    JAVA_BOOLEAN.withName("strict_cpu"),
                    JAVA_BOOLEAN.withName("paused"),
                    MemoryLayout.paddingLayout(2))
            .withName("ggml_threadpool_params");

    /** {@code struct llama_token_data}, 12 bytes: one candidate of a sampling step. */
    public static final StructLayout llama_token_data = MemoryLayout.structLayout(
                    JAVA_INT.withName("id"), // llama_token
                    JAVA_FLOAT.withName("logit"),
                    JAVA_FLOAT.withName("p"))
            .withName("llama_token_data");

    /** {@code struct llama_token_data_array}, 32 bytes: the candidates a sampler stage filters. */
    public static final StructLayout llama_token_data_array = MemoryLayout.structLayout(
                    ADDRESS.withName("data"), // llama_token_data *, which stages may replace
                    SIZE_T.withName("size"),
                    JAVA_LONG.withName("selected"), // int64_t, an index into data
                    JAVA_BOOLEAN.withName("sorted"),
                    MemoryLayout.paddingLayout(7))
            .withName("llama_token_data_array");

    /** {@code struct llama_sampler_i}, 96 bytes: a sampler stage's functions; NULL where optional. */
    public static final StructLayout llama_sampler_i = MemoryLayout.structLayout(
                    ADDRESS.withName("name"),
                    ADDRESS.withName("accept"),
                    ADDRESS.withName("apply"),
                    ADDRESS.withName("reset"),
                    ADDRESS.withName("clone"),
                    ADDRESS.withName("free"),
                    ADDRESS.withName("backend_init"), // the [EXPERIMENTAL] backend sampling interface
                    ADDRESS.withName("backend_accept"),
                    ADDRESS.withName("backend_apply"),
                    ADDRESS.withName("backend_set_input"),
                    ADDRESS.withName("backend_reset"),
                    ADDRESS.withName("copy_state"))
            .withName("llama_sampler_i");

    /** {@code struct llama_sampler}, 16 bytes. */
    public static final StructLayout llama_sampler = MemoryLayout.structLayout(
                    ADDRESS.withName("iface"), // struct llama_sampler_i *
                    ADDRESS.withName("ctx") // llama_sampler_context_t (void *)
                    )
            .withName("llama_sampler");

    /** {@code struct llama_chat_message}, 16 bytes: one message for {@code llama_chat_apply_template}. */
    public static final StructLayout llama_chat_message = MemoryLayout.structLayout(
                    ADDRESS.withName("role"), // const char *
                    ADDRESS.withName("content") // const char *
                    )
            .withName("llama_chat_message");

    /** {@code struct mtmd_context_params} of {@code tools/mtmd/mtmd.h}, 96 bytes. */
    public static final StructLayout mtmd_context_params = MemoryLayout.structLayout(
                    JAVA_BOOLEAN.withName("use_gpu"),
                    MemoryLayout.paddingLayout(7),
                    ADDRESS.withName("device"), // ggml_backend_dev_t
                    JAVA_BOOLEAN.withName("print_timings"),
                    MemoryLayout.paddingLayout(3),
                    JAVA_INT.withName("n_threads"),
                    ADDRESS.withName("image_marker"), // const char *, deprecated
                    ADDRESS.withName("media_marker"), // const char *
                    JAVA_INT.withName("flash_attn_type"), // enum llama_flash_attn_type
                    JAVA_BOOLEAN.withName("warmup"),
                    MemoryLayout.paddingLayout(3),
                    JAVA_INT.withName("image_min_tokens"),
                    JAVA_INT.withName("image_max_tokens"),
                    ADDRESS.withName("cb_eval"), // ggml_backend_sched_eval_callback
                    ADDRESS.withName("cb_eval_user_data"),
                    JAVA_INT.withName("batch_max_tokens"),
                    MemoryLayout.paddingLayout(4),
                    ADDRESS.withName("progress_callback"), // mtmd_progress_callback
                    ADDRESS.withName("progress_callback_user_data"))
            .withName("mtmd_context_params");

    /** {@code struct mtmd_input_text}, 24 bytes: the prompt {@code mtmd_tokenize} splits at its media markers. */
    public static final StructLayout mtmd_input_text = MemoryLayout.structLayout(
                    ADDRESS.withName("text"), // const char *
                    SIZE_T.withName("text_len"),
                    JAVA_BOOLEAN.withName("add_special"),
                    JAVA_BOOLEAN.withName("parse_special"),
                    MemoryLayout.paddingLayout(6))
            .withName("mtmd_input_text");

    /** Every layout above, for the layout test. */
    public static final List<StructLayout> ALL = List.of(
            llama_model_params,
            llama_context_params,
            llama_batch,
            llama_sampler_chain_params,
            llama_model_quantize_params,
            llama_logit_bias,
            ggml_threadpool_params,
            llama_token_data,
            llama_token_data_array,
            llama_sampler_i,
            llama_sampler,
            llama_chat_message,
            mtmd_context_params,
            mtmd_input_text);

    /** The byte offset of {@code field} in {@code struct}; fails for a name the layout lacks. */
    public static long offset(StructLayout struct, String field) {
        return struct.byteOffset(MemoryLayout.PathElement.groupElement(field));
    }

    public static void setInt(MemorySegment s, StructLayout struct, String field, int value) {
        s.set(JAVA_INT, offset(struct, field), value);
    }

    public static int getInt(MemorySegment s, StructLayout struct, String field) {
        return s.get(JAVA_INT, offset(struct, field));
    }

    public static void setBoolean(MemorySegment s, StructLayout struct, String field, boolean value) {
        s.set(JAVA_BOOLEAN, offset(struct, field), value);
    }

    public static boolean getBoolean(MemorySegment s, StructLayout struct, String field) {
        return s.get(JAVA_BOOLEAN, offset(struct, field));
    }

    public static void setAddress(MemorySegment s, StructLayout struct, String field, MemorySegment value) {
        s.set(ADDRESS, offset(struct, field), value);
    }

    public static MemorySegment getAddress(MemorySegment s, StructLayout struct, String field) {
        return s.get(ADDRESS, offset(struct, field));
    }
}
