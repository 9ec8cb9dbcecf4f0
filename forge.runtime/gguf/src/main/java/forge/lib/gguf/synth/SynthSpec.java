package forge.lib.gguf.synth;

import forge.api.UserHome;
import forge.lib.gguf.GgmlType;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The shape of a synthetic model: a random-weight transformer that llama.cpp loads and runs at
 * the cost of a real model of the same shape, with a vocabulary of the family under test.
 * {@link SyntheticModels#write(SynthSpec, Path)} turns it into a GGUF file.
 *
 * {@snippet :
 * SynthSpec tiny = SynthSpec.tiny("qwen");                      // 64 wide, 2 layers, 512 tokens
 * SynthSpec wider = tiny.withShape(128, 4, 8, 2, 256).withSeed(7);
 * SynthSpec bench = SynthSpec.qwen25_05b();                      // Qwen2.5-0.5B's shape and vocabulary
 * }
 *
 * @param architecture   {@code general.architecture}: {@code qwen2} (with Q/K/V biases), {@code llama},
 *                       {@code qwen3} (no biases, Q/K norms; the architecture of Qwen3-Reranker), or
 *                       {@code qwen2vl} (Qwen2-VL's and Qwen2.5-VL's text model: {@code qwen2}'s tensors,
 *                       positions by M-RoPE over {@code rope.dimension_sections})
 * @param embedding      {@code n_embd}, a multiple of {@code heads} with an even head size
 * @param layers         {@code n_layer}, 1 to 512
 * @param heads          attention heads
 * @param kvHeads        key/value heads, a divisor of {@code heads}
 * @param ffn            the feed-forward width
 * @param contextLength  {@code n_ctx_train}
 * @param vocabulary     where the vocabulary comes from
 * @param tensorType     the type of the weight matrices, {@code F32} or {@code F16} (norms and
 *                       biases are always {@code F32})
 * @param seed           the seed of the random weights: the same spec gives the same bytes
 * @param name           {@code general.name}
 * @param tiedEmbeddings whether the output projection reuses {@code token_embd.weight} (no
 *                       {@code output.weight}), as Qwen2.5-0.5B and Llama 3.2 1B do
 */
public record SynthSpec(
        String architecture,
        int embedding,
        int layers,
        int heads,
        int kvHeads,
        int ffn,
        int contextLength,
        Vocabulary vocabulary,
        GgmlType tensorType,
        long seed,
        String name,
        boolean tiedEmbeddings) {

    /** The architectures a synthetic model can have. */
    public static final List<String> ARCHITECTURES = List.of("qwen2", "llama", "qwen3", "qwen2vl");

    /** The families a generated vocabulary can imitate. */
    public static final List<String> FAMILIES = List.of("qwen", "llama", "gemma", "kimi", "generic", "coder");

    /** {@code LLAMA_MAX_LAYERS}. */
    private static final int MAX_LAYERS = 512;

    public SynthSpec {
        Objects.requireNonNull(architecture, "architecture");
        Objects.requireNonNull(vocabulary, "vocabulary");
        Objects.requireNonNull(tensorType, "tensorType");
        Objects.requireNonNull(name, "name");
        if (!ARCHITECTURES.contains(architecture)) {
            throw new IllegalArgumentException(
                    "architecture must be one of " + ARCHITECTURES + ", not '" + architecture + "'");
        }
        positive(embedding, "embedding");
        positive(heads, "heads");
        positive(kvHeads, "kvHeads");
        positive(ffn, "ffn");
        positive(contextLength, "contextLength");
        if (layers < 1 || layers > MAX_LAYERS) {
            throw new IllegalArgumentException("layers must be 1 to " + MAX_LAYERS + ", not " + layers);
        }
        if (embedding % heads != 0) {
            throw new IllegalArgumentException("heads (" + heads + ") must divide embedding (" + embedding + ")");
        }
        if ((embedding / heads) % 2 != 0) {
            // RoPE rotates pairs of dimensions
            throw new IllegalArgumentException(
                    "the head size embedding/heads = " + embedding / heads + " must be even");
        }
        if (heads % kvHeads != 0) {
            throw new IllegalArgumentException("kvHeads (" + kvHeads + ") must divide heads (" + heads + ")");
        }
        if (tensorType != GgmlType.F32 && tensorType != GgmlType.F16) {
            throw new IllegalArgumentException("tensorType must be F32 or F16, not " + tensorType);
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank");
        }
    }

    /** Where a synthetic model's vocabulary comes from. */
    public sealed interface Vocabulary permits Generated, CopiedFrom {}

    /**
     * A small byte-level BPE vocabulary generated in memory, with the special tokens and chat
     * template of {@code family} (see {@link SynthVocabulary}).
     *
     * @param family one of {@link #FAMILIES}
     * @param size   the number of tokens, 300 to 262144
     */
    public record Generated(String family, int size) implements Vocabulary {
        /** The smallest generated vocabulary: the 256 byte tokens, the specials and some merges. */
        public static final int MIN_SIZE = 300;
        /** The largest generated vocabulary. */
        public static final int MAX_SIZE = 262_144;

        public Generated {
            Objects.requireNonNull(family, "family");
            if (!FAMILIES.contains(family)) {
                throw new IllegalArgumentException("family must be one of " + FAMILIES + ", not '" + family + "'");
            }
            if (size < MIN_SIZE || size > MAX_SIZE) {
                throw new IllegalArgumentException(
                        "a generated vocabulary has " + MIN_SIZE + " to " + MAX_SIZE + " tokens, not " + size);
            }
        }
    }

    /**
     * Every {@code tokenizer.*} key of a GGUF file, typically one of llama.cpp's vocab-only files
     * ({@code models/ggml-vocab-qwen2.gguf}); the model's {@code n_vocab} is its token count.
     *
     * @param vocabOnlyGguf the file, read when the model is written
     */
    public record CopiedFrom(Path vocabOnlyGguf) implements Vocabulary {
        public CopiedFrom {
            Objects.requireNonNull(vocabOnlyGguf, "vocabOnlyGguf");
        }
    }

    /**
     * A tiny model for tests: 64 wide, 2 layers, 4 heads, 2 KV heads, FFN 128, context 1024, a
     * generated vocabulary of 512 tokens, F32. {@code qwen}, {@code kimi}, {@code generic} and
     * {@code coder} get the {@code qwen2} architecture, {@code llama} and {@code gemma} the {@code llama} one.
     *
     * @param family one of {@link #FAMILIES}
     */
    public static SynthSpec tiny(String family) {
        Vocabulary vocabulary = new Generated(family, 512);
        String architecture = family.equals("llama") || family.equals("gemma") ? "llama" : "qwen2";
        return new SynthSpec(
                architecture,
                64,
                2,
                4,
                2,
                128,
                1024,
                vocabulary,
                GgmlType.F32,
                42,
                "forge-synth-tiny-" + family,
                false);
    }

    /**
     * Qwen2.5-0.5B's shape for benchmarks: 896 wide, 24 layers, 14 heads, 2 KV heads, FFN 4864,
     * context 32768, F16, tied embeddings, the vocabulary (151,936 tokens) copied from
     * {@code vocabOnlyGguf}, normally llama.cpp's {@code models/ggml-vocab-qwen2.gguf}.
     */
    public static SynthSpec qwen25_05b(Path vocabOnlyGguf) {
        return new SynthSpec(
                "qwen2",
                896,
                24,
                14,
                2,
                4864,
                32768,
                new CopiedFrom(vocabOnlyGguf),
                GgmlType.F16,
                42,
                "forge-synth-qwen2.5-0.5b",
                true);
    }

    /**
     * {@link #qwen25_05b(Path)} with the vocabulary of llama.cpp's source as the build caches it:
     * {@code <forge.llama.home>/src/models/ggml-vocab-qwen2.gguf}, where the system property
     * {@code forge.llama.home} defaults to {@code ~/.cache/forge/llama-3.22.1}. The file is
     * read when the model is written, and a missing one is reported then.
     */
    public static SynthSpec qwen25_05b() {
        return qwen25_05b(llamaModelsDir().resolve("ggml-vocab-qwen2.gguf"));
    }

    /** The {@code models/} folder of the cached llama.cpp source, with its vocab-only GGUF files. */
    public static Path llamaModelsDir() {
        String home = System.getProperty("forge.llama.home");
        Path base = home != null && !home.isBlank()
                ? Path.of(home)
                : UserHome.get().resolve(".cache/forge/llama-3.22.1"); // $HOME, as natives.sh's shell has it
        return base.resolve("src").resolve("models");
    }

    /** The number of attention dimensions per head. */
    public int headSize() {
        return embedding / heads;
    }

    /** This spec with another architecture. */
    public SynthSpec withArchitecture(String architecture) {
        return with(copy -> copy.architecture = architecture);
    }

    /** This spec with another shape, all at once (one field at a time may pass through invalid shapes). */
    public SynthSpec withShape(int embedding, int layers, int heads, int kvHeads, int ffn) {
        return with(copy -> {
            copy.embedding = embedding;
            copy.layers = layers;
            copy.heads = heads;
            copy.kvHeads = kvHeads;
            copy.ffn = ffn;
        });
    }

    /** This spec with another training context length. */
    public SynthSpec withContextLength(int contextLength) {
        return with(copy -> copy.contextLength = contextLength);
    }

    /** This spec with another vocabulary. */
    public SynthSpec withVocabulary(Vocabulary vocabulary) {
        return with(copy -> copy.vocabulary = vocabulary);
    }

    /** This spec with another weight type ({@code F32} or {@code F16}). */
    public SynthSpec withTensorType(GgmlType tensorType) {
        return with(copy -> copy.tensorType = tensorType);
    }

    /** This spec with another seed. */
    public SynthSpec withSeed(long seed) {
        return with(copy -> copy.seed = seed);
    }

    /** This spec with another {@code general.name}. */
    public SynthSpec withName(String name) {
        return with(copy -> copy.name = name);
    }

    /** This spec with or without a separate {@code output.weight}. */
    public SynthSpec withTiedEmbeddings(boolean tiedEmbeddings) {
        return with(copy -> copy.tiedEmbeddings = tiedEmbeddings);
    }

    /**
     * This spec with the components {@code change} sets: every wither goes through one copy of the
     * canonical constructor's argument list, and the result is validated there as any spec is.
     */
    private SynthSpec with(Consumer<Copy> change) {
        Copy copy = new Copy(this);
        change.accept(copy);
        return new SynthSpec(
                copy.architecture,
                copy.embedding,
                copy.layers,
                copy.heads,
                copy.kvHeads,
                copy.ffn,
                copy.contextLength,
                copy.vocabulary,
                copy.tensorType,
                copy.seed,
                copy.name,
                copy.tiedEmbeddings);
    }

    /** The components of a spec being changed by a wither; never escapes {@link #with}. */
    private static final class Copy {
        String architecture;
        int embedding;
        int layers;
        int heads;
        int kvHeads;
        int ffn;
        int contextLength;
        Vocabulary vocabulary;
        GgmlType tensorType;
        long seed;
        String name;
        boolean tiedEmbeddings;

        Copy(SynthSpec spec) {
            architecture = spec.architecture;
            embedding = spec.embedding;
            layers = spec.layers;
            heads = spec.heads;
            kvHeads = spec.kvHeads;
            ffn = spec.ffn;
            contextLength = spec.contextLength;
            vocabulary = spec.vocabulary;
            tensorType = spec.tensorType;
            seed = spec.seed;
            name = spec.name;
            tiedEmbeddings = spec.tiedEmbeddings;
        }
    }

    private static void positive(int value, String what) {
        if (value <= 0) {
            throw new IllegalArgumentException(what + " must be positive, not " + value);
        }
    }
}
