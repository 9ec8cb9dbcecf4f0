package forge.http.cli;

import forge.api.ForgeException;
import forge.api.UserHome;
import forge.api.backend.ModelQuantizer;
import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.TemplateContext;
import forge.lib.gguf.GgmlType;
import forge.lib.gguf.GgufReader;
import forge.lib.gguf.GgufWriter;
import forge.lib.gguf.synth.SynthProjector;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SyntheticModels;
import forge.runtime.ForgeRuntime;
import forge.runtime.catalog.ModelRegistry;
import forge.runtime.catalog.TemplateSelector;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code forge model ...}: model tools. */
@Command(
        name = "models",
        aliases = "model",
        mixinStandardHelpOptions = true,
        description = "The models: list, inspect, alias, rm, pull, load, unload; synth for tests.",
        subcommands = {
            ModelStoreCommands.List_.class,
            ModelCommand.Inspect.class,
            ModelStoreCommands.Alias.class,
            ModelStoreCommands.Rm.class,
            ModelStoreCommands.Pull.class,
            ModelStoreCommands.Load.class,
            ModelStoreCommands.Unload.class,
            ModelCommand.Synth.class
        })
final class ModelCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }

    /**
     * {@code forge models inspect FILE|MODEL}: a model's GGUF metadata, architecture, quantization
     * and context; the chat template it would be served with, which plugin claims it and why
     * (every family's claim), whether it parses, and its source.
     */
    @Command(
            name = "inspect",
            mixinStandardHelpOptions = true,
            description = {
                "Show a GGUF model: its metadata, architecture, quantization and context; its chat template, which plugin",
                "renders it and why, each family's claim, and the template's source. MODEL is a file or an id of forge models list."
            })
    static final class Inspect extends ModelStoreCommands.CatalogCommand {

        @Parameters(paramLabel = "FILE|MODEL", description = "A .gguf file, or the id or alias of a model.")
        String name;

        /** The file {@link #name} names: itself, or the file of the model with that id in the sources. */
        private Path file() {
            Path given = UserHome.expand(name, sources.home());
            if (Files.isRegularFile(given)) {
                return given;
            }
            try (var offline = offline()) {
                var entry = offline.catalog()
                        .find(name)
                        .orElseThrow(() -> new ForgeException(
                                "no file or model '" + name + "' (forge models list shows the models)"));
                out().printf(
                                "source:         %s%s%n",
                                entry.source(),
                                entry.reason()
                                        .map(r -> " (UNAVAILABLE: " + r + ")")
                                        .orElse(""));
                return entry.descriptor().path();
            }
        }

        @Option(
                names = {"--template", "--chat-template"},
                paramLabel = "NAME",
                description = "As forge serve: a template chosen by name.")
        String template = "";

        @Option(
                names = "--chat-template-file",
                paramLabel = "FILE",
                description = "As forge serve: a Jinja template in place of the GGUF's.")
        Path templateFile;

        @Override
        public Integer call() {
            var out = out();
            Path path = file().toAbsolutePath().normalize();
            var gguf = GgufReader.read(path);
            var metadata = ModelRegistry.withTemplate(
                    gguf.metadata(), templateFile == null ? null : TemplateOptions.readTemplate(templateFile));
            var model = new ModelDescriptor(ModelRegistry.idOf(path), List.of(), path, metadata);
            var plugins = ForgeRuntime.inspect(common.runtimeConfig()).plugins();
            var selector = new TemplateSelector(plugins.templates());
            var chosen = selector.select(model, template);
            out.printf("model:          %s (%s)%n", model.id(), path);
            out.printf("architecture:   %s%n", metadata.architecture().orElse("(none)"));
            out.printf("quantization:   %s%n", quantization(metadata));
            out.printf(
                    "context:        %s (training)%n",
                    metadata.contextLength().isPresent()
                            ? metadata.contextLength().getAsLong()
                            : "unknown");
            out.printf(
                    "size:           %s, %d tensors%n",
                    ModelStoreCommands.size(gguf.fileSize()), gguf.tensors().size());
            out.println("metadata:");
            metadata.values().forEach((key, value) -> {
                if (!key.startsWith("tokenizer.")) {
                    String text = String.valueOf(value);
                    out.printf("  %-40s %s%n", key, text.length() > 100 ? text.substring(0, 100) + "..." : text);
                }
            });
            out.printf(
                    "chat template:  %s, family %s (%s: %s)%n",
                    chosen.variant(), chosen.provider().family(), chosen.rule(), chosen.reason());
            out.println("claims:");
            for (var t : plugins.templates()) {
                String claim;
                try {
                    claim = t.provider()
                            .claim(model)
                            .map(c -> c.variant() + " (" + c.rule().name().toLowerCase(Locale.ROOT) + ", confidence "
                                    + c.confidence() + ": " + c.reason() + ")")
                            .orElse("none");
                } catch (RuntimeException e) {
                    claim = "failed: " + e;
                }
                out.printf("  %-10s %s  [%s]%n", t.provider().family(), claim, t.module());
            }
            Optional<String> source = metadata.chatTemplate().filter(x -> !x.isBlank());
            try {
                // No vocabulary is loaded here: BOS and EOS render as empty text.
                var rendering = chosen.provider().create(chosen.variant(), new TemplateContext(model, "", ""));
                out.printf(
                        "renders:        %s%n",
                        rendering.unusable().map(why -> "NO: " + why).orElse("yes"));
            } catch (RuntimeException e) {
                out.printf("renders:        NO: %s%n", e.getMessage());
            }
            if (source.isEmpty()) {
                out.println("template source: none in the model" + (templateFile == null ? "" : " or the file"));
            } else {
                out.printf(
                        "template source (%s, %d lines):%n",
                        templateFile == null ? "tokenizer.chat_template" : templateFile,
                        source.get().lines().count());
                out.println(source.get());
            }
            out.flush();
            return 0;
        }
    }

    /** {@code general.file_type} by llama.cpp's name ({@code enum llama_ftype} of llama.h). */
    static String quantization(ModelMetadata metadata) {
        var type = metadata.integer("general.file_type");
        if (type.isEmpty()) {
            return "unknown (no general.file_type)";
        }
        String[] names = {
            "F32",
            "F16",
            "Q4_0",
            "Q4_1",
            null,
            null,
            null,
            "Q8_0",
            "Q5_0",
            "Q5_1",
            "Q2_K",
            "Q3_K_S",
            "Q3_K_M",
            "Q3_K_L",
            "Q4_K_S",
            "Q4_K_M",
            "Q5_K_S",
            "Q5_K_M",
            "Q6_K",
            "IQ2_XXS",
            "IQ2_XS",
            "Q2_K_S",
            "IQ3_XS",
            "IQ3_XXS",
            "IQ1_S",
            "IQ4_NL",
            "IQ3_S",
            "IQ3_M",
            "IQ2_S",
            "IQ2_M",
            "IQ4_XS",
            "IQ1_M",
            "BF16",
            null,
            null,
            null,
            "TQ1_0",
            "TQ2_0",
            "MXFP4_MOE",
            "NVFP4",
            "Q1_0",
            "Q2_0"
        };
        long t = type.getAsLong();
        return t >= 0 && t < names.length && names[(int) t] != null ? names[(int) t] : "type " + t;
    }

    /** {@code forge model synth}: a random-weight GGUF model of a chosen shape, for tests and benchmarks. */
    @Command(
            name = "synth",
            mixinStandardHelpOptions = true,
            description = {
                "Write a random-weight GGUF model of a chosen architecture and shape.",
                "Its compute cost per token equals a real model of the same shape; its text is noise."
            })
    static final class Synth implements Callable<Integer> {

        @Mixin
        CommonOptions common = new CommonOptions();

        @Option(
                names = {"-o", "--output"},
                required = true,
                paramLabel = "FILE",
                description = "The .gguf file to write.")
        Path output;

        @Option(
                names = "--family",
                defaultValue = "qwen",
                description =
                        "Special tokens and chat template of a family: qwen, llama, gemma, kimi, generic, coder (qwen's with"
                                + " fill-in-the-middle tokens) (default: ${DEFAULT-VALUE}).")
        String family;

        @Option(
                names = "--arch",
                description = "Architecture: qwen2, llama, qwen3 or qwen2vl (default: by family; qwen2vl with an"
                        + " M-RoPE --mmproj-family).")
        String architecture;

        @Option(
                names = "--rerank",
                description =
                        "A reranker shaped like Qwen3-Reranker: the qwen3 architecture with a rank head and a rerank prompt template.")
        boolean rerank;

        @Option(
                names = "--preset",
                description =
                        "tiny (64 wide, 2 layers) or qwen2.5-0.5b (896 wide, 24 layers, real Qwen2 vocabulary). Shape options override it.")
        String preset = "tiny";

        @Option(names = "--embd", description = "Embedding width.")
        Integer embedding;

        @Option(names = "--layers", description = "Number of layers.")
        Integer layers;

        @Option(names = "--heads", description = "Attention heads.")
        Integer heads;

        @Option(names = "--kv-heads", description = "Key/value heads.")
        Integer kvHeads;

        @Option(names = "--ffn", description = "Feed-forward width.")
        Integer ffn;

        @Option(names = "--ctx", description = "Training context length.")
        Integer context;

        @Option(names = "--vocab-size", description = "Size of the generated vocabulary.")
        Integer vocabSize;

        @Option(
                names = "--vocab-from",
                paramLabel = "GGUF",
                description =
                        "Copy the vocabulary from a vocab-only GGUF (e.g. llama.cpp's models/ggml-vocab-qwen2.gguf).")
        Path vocabFrom;

        @Option(
                names = "--type",
                defaultValue = "F32",
                description = "Tensor type written: F32 or F16 (default: ${DEFAULT-VALUE}).")
        String type;

        @Option(
                names = "--quantize",
                paramLabel = "TYPE",
                description = "Then quantize with llama.cpp: Q8_0, Q4_K_M, ...")
        String quantize;

        @Option(
                names = "--seed",
                defaultValue = "42",
                description = "Weights' random seed (default: ${DEFAULT-VALUE}).")
        long seed;

        @Option(names = "--name", description = "general.name of the model.")
        String name;

        @Option(
                names = "--lora-rank",
                paramLabel = "N",
                description = "Write a LoRA adapter of rank N (random weights, llama.cpp's convert_lora_to_gguf.py"
                        + " layout) for the model the other options describe, instead of the model; --seed makes"
                        + " adapters of one model differ.")
        Integer loraRank;

        @Option(
                names = "--lora-alpha",
                defaultValue = "16",
                description = "adapter.lora.alpha of the adapter (default: ${DEFAULT-VALUE}).")
        float loraAlpha;

        @Option(
                names = "--mmproj",
                paramLabel = "FILE",
                description = "Also write a random-weight projector for the model (an mmproj GGUF of"
                        + " --mmproj-family, as wide as the model).")
        Path mmproj;

        @Option(
                names = "--mmproj-family",
                defaultValue = "gemma3",
                description =
                        "The projector's family: gemma3 or mlp (LLaVA), vision; qwen2vl_merger or qwen2.5vl_merger"
                                + " (Qwen2-VL's and Qwen2.5-VL's, images placed by M-RoPE, for a qwen2vl model); qwen2a (Qwen2-Audio's Whisper encoder), audio (default:"
                                + " ${DEFAULT-VALUE}).")
        String mmprojFamily;

        @Option(
                names = "--mmproj-size",
                paramLabel = "EMBD:LAYERS:IMAGE",
                description = "The projector's encoder: width, blocks and image size in pixels (14-pixel patches;"
                        + " for benchmarks: 256:6:448 encodes 1024 patches); default the tiny test projector's.")
        String mmprojSize;

        @Spec
        CommandSpec spec;

        /** {@code --mmproj-size EMBD:LAYERS:IMAGE} as a projector of {@code textEmbedding}'s width. */
        private SynthProjector sizedProjector(int textEmbedding) {
            String[] parts = mmprojSize.split(":");
            try {
                if (parts.length != 3) {
                    throw new IllegalArgumentException("expected EMBD:LAYERS:IMAGE");
                }
                return SynthProjector.sized(
                        mmprojFamily,
                        textEmbedding,
                        Integer.parseInt(parts[0]),
                        Integer.parseInt(parts[1]),
                        Integer.parseInt(parts[2]));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--mmproj-size " + mmprojSize + ": " + e.getMessage());
            }
        }

        @Override
        public Integer call() throws IOException {
            SynthSpec s = switch (preset) {
                case "tiny" -> SynthSpec.tiny(family);
                case "qwen2.5-0.5b" -> vocabFrom != null ? SynthSpec.qwen25_05b(vocabFrom) : SynthSpec.qwen25_05b();
                default -> throw new ForgeException("unknown preset '" + preset + "': use tiny or qwen2.5-0.5b");
            };
            if (architecture != null) {
                s = s.withArchitecture(architecture);
            } else if (mmproj != null && SynthProjector.MROPE_FAMILIES.contains(mmprojFamily)) {
                s = s.withArchitecture("qwen2vl"); // the text model of a projector that places images by M-RoPE
            } else if (rerank) {
                s = s.withArchitecture("qwen3");
            }
            s = s.withShape(
                    embedding != null ? embedding : s.embedding(),
                    layers != null ? layers : s.layers(),
                    heads != null ? heads : s.heads(),
                    kvHeads != null ? kvHeads : s.kvHeads(),
                    ffn != null ? ffn : s.ffn());
            if (context != null) {
                s = s.withContextLength(context);
            }
            if (vocabFrom != null) {
                s = s.withVocabulary(new SynthSpec.CopiedFrom(vocabFrom));
            } else if (vocabSize != null) {
                s = s.withVocabulary(new SynthSpec.Generated(family, vocabSize));
            }
            s = s.withTensorType(GgmlType.valueOf(type.toUpperCase(Locale.ROOT)))
                    .withSeed(seed);
            if (name != null) {
                s = s.withName(name);
            }
            var out = spec.commandLine().getOut();
            if (loraRank != null) {
                if (quantize != null) {
                    throw new ForgeException("--lora-rank writes an F32 adapter; it takes no --quantize");
                }
                // The adapter fits every model of the same shape options, whatever its seed.
                SyntheticModels.writeLora(s, loraRank, loraAlpha, seed, output);
                out.printf(
                        "wrote %s (%d bytes): LoRA adapter of rank %d for %s %dx%d%n",
                        output, Files.size(output), loraRank, s.architecture(), s.embedding(), s.layers());
                return 0;
            }
            Path target = quantize == null ? output : output.resolveSibling(output.getFileName() + ".f.tmp");
            int[] lastTenth = {-1};
            GgufWriter writer = rerank ? SyntheticModels.reranker(s) : SyntheticModels.writer(s);
            writer.write(target, fraction -> {
                int tenth = (int) (fraction * 10);
                if (tenth > lastTenth[0]) {
                    lastTenth[0] = tenth;
                    out.printf("writing %s: %d%%%n", target.getFileName(), tenth * 10);
                    out.flush();
                }
            });
            if (quantize != null) {
                try (ForgeRuntime runtime = ForgeRuntime.start(common.runtimeConfig())) {
                    ModelQuantizer quantizer = runtime.backend()
                            .quantizer()
                            .orElseThrow(() -> new ForgeException(
                                    "backend " + runtime.backend().name() + " cannot quantize"));
                    out.printf("quantizing to %s ...%n", quantize);
                    out.flush();
                    quantizer.quantize(
                            target,
                            output,
                            quantize,
                            Math.max(1, Runtime.getRuntime().availableProcessors()));
                } finally {
                    Files.deleteIfExists(target);
                }
            }
            if (mmproj != null) {
                SynthProjector projector = mmprojSize == null
                        ? SynthProjector.tiny(mmprojFamily, s.embedding())
                        : sizedProjector(s.embedding());
                projector.write(mmproj);
                if (projector.audio()) {
                    out.printf(
                            "wrote %s (%d bytes): %s audio projector, %d embeddings a 30-second window%n",
                            mmproj, Files.size(mmproj), mmprojFamily, SynthProjector.TOKENS_PER_AUDIO_WINDOW);
                } else {
                    out.printf(
                            "wrote %s (%d bytes): %s projector, %d embeddings at %d positions an image of %dx%d%n",
                            mmproj,
                            Files.size(mmproj),
                            mmprojFamily,
                            projector.tokensPerImage(),
                            projector.positionsPerImage(),
                            projector.imageSize(),
                            projector.imageSize());
                }
            }
            out.printf(
                    "wrote %s (%d bytes): %s %dx%d, %d heads/%d kv, ffn %d, %s%n",
                    output,
                    Files.size(output),
                    s.architecture(),
                    s.embedding(),
                    s.layers(),
                    s.heads(),
                    s.kvHeads(),
                    s.ffn(),
                    quantize != null ? quantize : s.tensorType());
            return 0;
        }
    }
}
