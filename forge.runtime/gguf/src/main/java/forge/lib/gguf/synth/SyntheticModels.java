package forge.lib.gguf.synth;

import forge.lib.gguf.GgmlType;
import forge.lib.gguf.GgufException;
import forge.lib.gguf.GgufReader;
import forge.lib.gguf.GgufType;
import forge.lib.gguf.GgufValue;
import forge.lib.gguf.GgufWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.DoubleConsumer;

/**
 * Writes synthetic models: GGUF files that llama.cpp v0.5.0 loads and runs like a real model of
 * the same architecture and shape, with random weights (so their text is noise) and a generated
 * or copied vocabulary.
 *
 * <p>The file has the keys llama.cpp's {@code load_hparams} reads for the architecture
 * ({@code <arch>.context_length}, {@code .embedding_length}, {@code .block_count},
 * {@code .feed_forward_length}, {@code .attention.head_count}, {@code .attention.head_count_kv},
 * {@code .attention.layer_norm_rms_epsilon}, {@code .rope.freq_base}) and the tensors its
 * {@code load_arch_tensors} creates: {@code token_embd}, {@code output_norm}, {@code output}
 * (unless tied), and per block {@code attn_norm}, {@code attn_q/k/v} (with biases for
 * {@code qwen2}), {@code attn_output}, {@code ffn_norm}, {@code ffn_gate/up/down}. Weights are
 * uniform random with standard deviation 0.02 from a generator seeded by the spec's seed and the
 * tensor's name; norms are 1. The same spec always gives the same bytes.
 *
 * {@snippet :
 * SyntheticModels.write(SynthSpec.tiny("llama"), dir.resolve("tiny-llama.gguf"));
 * SyntheticModels.write(SynthSpec.qwen25_05b(), dir.resolve("qwen2.5-0.5b-synth.gguf"),
 *         fraction -> System.out.printf("%3.0f%%%n", fraction * 100));
 * }
 */
public final class SyntheticModels {

    /** The standard deviation of the random weights: small enough that activations stay finite. */
    static final float WEIGHT_STD = 0.02f;

    /**
     * The standard deviation of a {@code qwen2vl} model's query and key weights. At
     * {@link #WEIGHT_STD} a random model's attention scores are near 0 and its attention nearly
     * uniform, so where its tokens sit hardly changes what it computes; at 0.25 the scores of a
     * 16-wide head spread over a few units, as a trained model's do, so text placed at other
     * positions than its M-RoPE image implies changes the next token's probabilities, which is what
     * tests of M-RoPE placement compare.
     */
    static final float MROPE_QK_STD = 0.25f;

    private static final int CHUNK = 1 << 16;

    private SyntheticModels() {}

    /**
     * Writes the model {@code spec} describes to {@code out}.
     *
     * @throws GgufException if the file cannot be written or a copied vocabulary cannot be read
     */
    public static void write(SynthSpec spec, Path out) {
        write(spec, out, fraction -> {});
    }

    /**
     * Writes the model {@code spec} describes to {@code out}, reporting the fraction written so
     * far (0 to 1) to {@code progress}, at most about once per MiB.
     *
     * @throws GgufException if the file cannot be written or a copied vocabulary cannot be read
     */
    public static void write(SynthSpec spec, Path out, DoubleConsumer progress) {
        writer(spec).write(out, progress);
    }

    /**
     * The M-RoPE sections of a {@code qwen2vl} model of head size {@code headSize}: the rotated
     * pairs ({@code headSize / 2}) split between time, height and width as Qwen2-VL's
     * {@code [16, 24, 24]} splits its 64, the fourth empty ({@code llama-model.cpp} reads four).
     */
    static int[] mropeSections(int headSize) {
        int pairs = headSize / 2;
        int time = pairs / 4;
        int height = (pairs - time) / 2;
        return new int[] {time, height, pairs - time - height, 0};
    }

    /**
     * The writer of the model {@code spec} describes, ready to {@link GgufWriter#write(Path)}, for
     * callers that add metadata of their own first. A copied vocabulary is read now.
     *
     * @throws GgufException if a copied vocabulary cannot be read
     */
    public static GgufWriter writer(SynthSpec spec) {
        Objects.requireNonNull(spec, "spec");
        Map<String, GgufValue> vocabulary = vocabularyMetadata(spec.vocabulary());
        long nVocab = ((GgufValue.Array) vocabulary.get("tokenizer.ggml.tokens")).size();

        String arch = spec.architecture();
        boolean qwen2 = arch.equals("qwen2") || arch.equals("qwen2vl");
        boolean qwen3 = arch.equals("qwen3");
        GgufWriter w = new GgufWriter();
        w.put("general.architecture", GgufValue.string(arch));
        w.put("general.type", GgufValue.string("model"));
        w.put("general.name", GgufValue.string(spec.name()));
        // llama_ftype: LLAMA_FTYPE_ALL_F32 = 0, LLAMA_FTYPE_MOSTLY_F16 = 1
        w.put("general.file_type", GgufValue.uint32(spec.tensorType() == GgmlType.F16 ? 1 : 0));
        w.put("general.quantization_version", GgufValue.uint32(2));
        w.put(arch + ".context_length", GgufValue.uint32(spec.contextLength()));
        w.put(arch + ".embedding_length", GgufValue.uint32(spec.embedding()));
        w.put(arch + ".block_count", GgufValue.uint32(spec.layers()));
        w.put(arch + ".feed_forward_length", GgufValue.uint32(spec.ffn()));
        w.put(arch + ".attention.head_count", GgufValue.uint32(spec.heads()));
        w.put(arch + ".attention.head_count_kv", GgufValue.uint32(spec.kvHeads()));
        // Qwen2.5: 1e6 and 1e-6; Llama 3: 5e5 and 1e-5
        w.put(arch + ".rope.freq_base", GgufValue.float32(qwen2 || qwen3 ? 1_000_000f : 500_000f));
        w.put(arch + ".attention.layer_norm_rms_epsilon", GgufValue.float32(qwen2 || qwen3 ? 1e-6f : 1e-5f));
        if (!qwen2) {
            w.put(arch + ".rope.dimension_count", GgufValue.uint32(spec.headSize()));
            w.put(arch + ".vocab_size", GgufValue.uint32(nVocab));
        }
        if (arch.equals("qwen2vl")) {
            w.put(arch + ".rope.dimension_sections", GgufValue.int32s(mropeSections(spec.headSize())));
        }
        w.putAll(vocabulary);

        long e = spec.embedding();
        long kv = (long) spec.kvHeads() * spec.headSize();
        long f = spec.ffn();
        GgmlType t = spec.tensorType();
        w.tensor("token_embd.weight", t, new long[] {e, nVocab}, random(spec, "token_embd.weight"));
        for (int i = 0; i < spec.layers(); i++) {
            String blk = "blk." + i + ".";
            w.tensor(blk + "attn_norm.weight", GgmlType.F32, new long[] {e}, ones());
            float qk = arch.equals("qwen2vl") ? MROPE_QK_STD : WEIGHT_STD;
            w.tensor(blk + "attn_q.weight", t, new long[] {e, e}, random(spec.seed(), blk + "attn_q.weight", qk));
            if (qwen2) {
                w.tensor(blk + "attn_q.bias", GgmlType.F32, new long[] {e}, random(spec, blk + "attn_q.bias"));
            }
            w.tensor(blk + "attn_k.weight", t, new long[] {e, kv}, random(spec.seed(), blk + "attn_k.weight", qk));
            if (qwen2) {
                w.tensor(blk + "attn_k.bias", GgmlType.F32, new long[] {kv}, random(spec, blk + "attn_k.bias"));
            }
            w.tensor(blk + "attn_v.weight", t, new long[] {e, kv}, random(spec, blk + "attn_v.weight"));
            if (qwen2) {
                w.tensor(blk + "attn_v.bias", GgmlType.F32, new long[] {kv}, random(spec, blk + "attn_v.bias"));
            }
            if (qwen3) {
                w.tensor(blk + "attn_q_norm.weight", GgmlType.F32, new long[] {spec.headSize()}, ones());
                w.tensor(blk + "attn_k_norm.weight", GgmlType.F32, new long[] {spec.headSize()}, ones());
            }
            w.tensor(blk + "attn_output.weight", t, new long[] {e, e}, random(spec, blk + "attn_output.weight"));
            w.tensor(blk + "ffn_norm.weight", GgmlType.F32, new long[] {e}, ones());
            w.tensor(blk + "ffn_gate.weight", t, new long[] {e, f}, random(spec, blk + "ffn_gate.weight"));
            w.tensor(blk + "ffn_up.weight", t, new long[] {e, f}, random(spec, blk + "ffn_up.weight"));
            w.tensor(blk + "ffn_down.weight", t, new long[] {f, e}, random(spec, blk + "ffn_down.weight"));
        }
        w.tensor("output_norm.weight", GgmlType.F32, new long[] {e}, ones());
        if (!spec.tiedEmbeddings()) {
            w.tensor("output.weight", t, new long[] {e, nVocab}, random(spec, "output.weight"));
        }
        return w;
    }

    /**
     * The standard deviation of a synthetic adapter's weights: large enough that the adapter, at
     * scale 1, outweighs the base weights it adapts (so greedy output changes with it and with its
     * scale), small enough that activations stay finite.
     */
    static final float LORA_STD = 0.1f;

    /**
     * Writes a LoRA adapter for the model {@code base} describes to {@code out}: random weights,
     * laid out as llama.cpp's {@code convert_lora_to_gguf.py} writes them ({@code general.type =
     * adapter}, {@code adapter.type = lora}, {@code adapter.lora.alpha}; for every attention and
     * feed-forward matrix {@code W} of {@code ne = [in, out]} a {@code W.lora_a} of {@code [in, rank]}
     * and a {@code W.lora_b} of {@code [rank, out]}, F32). {@code seed} makes adapters of one base
     * differ; the same arguments give the same bytes.
     *
     * @param rank  the adapter's rank, 1 to the base's embedding width
     * @param alpha {@code adapter.lora.alpha}: the deltas are scaled by {@code alpha / rank}
     */
    public static void writeLora(SynthSpec base, int rank, float alpha, long seed, Path out) {
        loraWriter(base, rank, alpha, seed).write(out, fraction -> {});
    }

    /** The writer of the adapter {@link #writeLora} writes. */
    public static GgufWriter loraWriter(SynthSpec base, int rank, float alpha, long seed) {
        Objects.requireNonNull(base, "base");
        if (rank < 1 || rank > base.embedding()) {
            throw new IllegalArgumentException("rank must be 1 to " + base.embedding() + ", not " + rank);
        }
        if (!Float.isFinite(alpha) || alpha < 0) {
            throw new IllegalArgumentException("alpha must be a finite number >= 0, not " + alpha);
        }
        String arch = base.architecture();
        GgufWriter w = new GgufWriter();
        w.put("general.architecture", GgufValue.string(arch));
        w.put("general.type", GgufValue.string("adapter"));
        w.put("general.name", GgufValue.string(base.name() + " LoRA"));
        w.put("general.file_type", GgufValue.uint32(0));
        w.put("general.quantization_version", GgufValue.uint32(2));
        w.put("adapter.type", GgufValue.string("lora"));
        w.put("adapter.lora.alpha", GgufValue.float32(alpha));
        long e = base.embedding();
        long kv = (long) base.kvHeads() * base.headSize();
        long f = base.ffn();
        long r = rank;
        for (int i = 0; i < base.layers(); i++) {
            String blk = "blk." + i + ".";
            long[][] shapes = {{e, e}, {e, kv}, {e, kv}, {e, e}, {e, f}, {e, f}, {f, e}};
            String[] names = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"};
            for (int j = 0; j < names.length; j++) {
                String weight = blk + names[j] + ".weight";
                w.tensor(
                        weight + ".lora_a",
                        GgmlType.F32,
                        new long[] {shapes[j][0], r},
                        random(seed, weight + "a", LORA_STD));
                w.tensor(
                        weight + ".lora_b",
                        GgmlType.F32,
                        new long[] {r, shapes[j][1]},
                        random(seed, weight + "b", LORA_STD));
            }
        }
        return w;
    }

    /**
     * The writer of a reranker shaped like Qwen3-Reranker: the {@code qwen3} model {@code spec}
     * describes with rank pooling ({@code qwen3.pooling_type} 4, {@code LLAMA_POOLING_TYPE_RANK}),
     * a classification head {@code cls.output.weight} over the labels {@code yes} and {@code no}
     * (llama.cpp takes the last token's hidden state through it and a softmax; the score is
     * {@code yes}'s), and the {@code rerank} chat template ({@code tokenizer.chat_template.rerank})
     * that llama-server fills with {@code {query}} and {@code {document}}.
     *
     * @throws IllegalArgumentException when {@code spec}'s architecture is not {@code qwen3}
     * @throws GgufException if a copied vocabulary cannot be read
     */
    public static GgufWriter reranker(SynthSpec spec) {
        if (!spec.architecture().equals("qwen3")) {
            throw new IllegalArgumentException(
                    "a synthetic reranker has the qwen3 architecture, not " + spec.architecture());
        }
        GgufWriter w = writer(spec);
        w.put("qwen3.pooling_type", GgufValue.uint32(RANK_POOLING));
        w.put("qwen3.classifier.output_labels", GgufValue.strings(List.of("yes", "no")));
        w.put("tokenizer.chat_template.rerank", GgufValue.string(RERANK_TEMPLATE));
        w.tensor(
                "cls.output.weight",
                spec.tensorType(),
                new long[] {spec.embedding(), 2},
                random(spec, "cls.output.weight"));
        return w;
    }

    /** {@code LLAMA_POOLING_TYPE_RANK} of llama.h's {@code enum llama_pooling_type}. */
    static final int RANK_POOLING = 4;

    /** Qwen3-Reranker's prompt, as its GGUF conversion stores it under {@code tokenizer.chat_template.rerank}. */
    static final String RERANK_TEMPLATE = "<|im_start|>system\nJudge whether the Document meets the requirements"
            + " based on the Query and the Instruct provided. Note that the answer can only be \"yes\" or \"no\"."
            + "<|im_end|>\n<|im_start|>user\n<Instruct>: Given a web search query, retrieve relevant passages that"
            + " answer the query\n<Query>: {query}\n<Document>: {document}<|im_end|>\n<|im_start|>assistant\n"
            + "<think>\n\n</think>\n\n";

    /** The {@code tokenizer.*} keys of the model's vocabulary. */
    static Map<String, GgufValue> vocabularyMetadata(SynthSpec.Vocabulary vocabulary) {
        return switch (vocabulary) {
            case SynthSpec.Generated g -> SynthVocabulary.generate(g).metadata();
            case SynthSpec.CopiedFrom(Path file) -> copyVocabulary(file);
        };
    }

    private static Map<String, GgufValue> copyVocabulary(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new GgufException(file + ": no such vocabulary file (llama.cpp's vocab-only GGUF files are in its"
                    + " source's models/ folder)");
        }
        try (GgufReader reader = GgufReader.open(file)) {
            Map<String, GgufValue> values = new LinkedHashMap<>(reader.values(k -> k.startsWith("tokenizer.")));
            if (!(values.get("tokenizer.ggml.tokens") instanceof GgufValue.Array tokens)
                    || tokens.elementType() != GgufType.STRING) {
                throw new GgufException(file + ": has no tokenizer.ggml.tokens array of strings to copy");
            }
            return values;
        }
    }

    /** A tensor of ones (norm weights). */
    static GgufWriter.TensorData ones() {
        return sink -> {
            float[] chunk = new float[CHUNK];
            Arrays.fill(chunk, 1f);
            fill(sink, chunk, () -> {});
        };
    }

    /**
     * Uniform random values in [-a, a] with a = std * sqrt(3) (so the standard deviation is
     * {@link #WEIGHT_STD}), from SplitMix64 seeded by the spec's seed and the tensor's name:
     * deterministic, independent of the order tensors are written in, and fast (a normal
     * distribution would cost more than the disk for a 500 MB model).
     */
    private static GgufWriter.TensorData random(SynthSpec spec, String tensor) {
        return random(spec.seed(), tensor, WEIGHT_STD);
    }

    /** {@link #random(SynthSpec, String)} for any seed: what the projector generator shares. */
    static GgufWriter.TensorData random(long seed, String tensor) {
        return random(seed, tensor, WEIGHT_STD);
    }

    private static GgufWriter.TensorData random(long seed, String tensor, float std) {
        return sink -> {
            long[] state = {mix(seed ^ mix(nameHash(tensor)))};
            float scale = (float) (std * Math.sqrt(3.0)) * 2f / (1 << 24);
            float offset = (float) (std * Math.sqrt(3.0));
            float[] chunk = new float[CHUNK];
            fill(sink, chunk, () -> {
                long[] s = state;
                for (int i = 0; i < chunk.length; i += 2) {
                    s[0] += 0x9E3779B97F4A7C15L;
                    long r = mix(s[0]);
                    chunk[i] = (int) (r >>> 40) * scale - offset;
                    chunk[i + 1] = (int) ((r >>> 8) & 0xFF_FFFF) * scale - offset;
                }
            });
        };
    }

    /** Writes the tensor's elements chunk by chunk, refilling {@code chunk} before each. */
    private static void fill(GgufWriter.TensorSink sink, float[] chunk, Runnable refill) throws IOException {
        int width = sink.type() == GgmlType.F32 ? 4 : 2;
        long elements = sink.remainingBytes() / width;
        while (elements > 0) {
            refill.run();
            int n = (int) Math.min(chunk.length, elements);
            sink.putFloats(chunk, 0, n);
            elements -= n;
        }
    }

    private static long nameHash(String name) {
        long h = 1125899906842597L;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h = 31 * h + b;
        }
        return h;
    }

    /** SplitMix64's finalizer. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
