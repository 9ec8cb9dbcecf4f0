package forge.http.cli;

import forge.api.ForgeException;
import forge.api.backend.ModelQuantizer;
import forge.runtime.ForgeRuntime;
import forge.runtime.gguf.GgmlType;
import forge.runtime.gguf.synth.SynthSpec;
import forge.runtime.gguf.synth.SyntheticModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code forge model ...}: model tools. */
@Command(name = "model", mixinStandardHelpOptions = true, description = "Model tools.",
        subcommands = {ModelCommand.Synth.class})
final class ModelCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }

    /** {@code forge model synth}: a random-weight GGUF model of a chosen shape, for tests and benchmarks. */
    @Command(name = "synth", mixinStandardHelpOptions = true, description = {
            "Write a random-weight GGUF model of a chosen architecture and shape.",
            "Its compute cost per token equals a real model of the same shape; its text is noise."})
    static final class Synth implements Callable<Integer> {

        @Mixin
        CommonOptions common = new CommonOptions();

        @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE", description = "The .gguf file to write.")
        Path output;

        @Option(names = "--family", defaultValue = "qwen", description = "Special tokens and chat template of a family: qwen, llama, gemma, kimi, generic (default: ${DEFAULT-VALUE}).")
        String family;

        @Option(names = "--arch", description = "Architecture: qwen2 or llama (default: by family).")
        String architecture;

        @Option(names = "--preset", description = "tiny (64 wide, 2 layers) or qwen2.5-0.5b (896 wide, 24 layers, real Qwen2 vocabulary). Shape options override it.")
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

        @Option(names = "--vocab-from", paramLabel = "GGUF", description = "Copy the vocabulary from a vocab-only GGUF (e.g. llama.cpp's models/ggml-vocab-qwen2.gguf).")
        Path vocabFrom;

        @Option(names = "--type", defaultValue = "F32", description = "Tensor type written: F32 or F16 (default: ${DEFAULT-VALUE}).")
        String type;

        @Option(names = "--quantize", paramLabel = "TYPE", description = "Then quantize with llama.cpp: Q8_0, Q4_K_M, ...")
        String quantize;

        @Option(names = "--seed", defaultValue = "42", description = "Weights' random seed (default: ${DEFAULT-VALUE}).")
        long seed;

        @Option(names = "--name", description = "general.name of the model.")
        String name;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            SynthSpec s = switch (preset) {
                case "tiny" -> SynthSpec.tiny(family);
                case "qwen2.5-0.5b" -> vocabFrom != null ? SynthSpec.qwen25_05b(vocabFrom) : SynthSpec.qwen25_05b();
                default -> throw new ForgeException("unknown preset '" + preset + "': use tiny or qwen2.5-0.5b");
            };
            if (architecture != null) {
                s = s.withArchitecture(architecture);
            }
            s = s.withShape(embedding != null ? embedding : s.embedding(), layers != null ? layers : s.layers(),
                    heads != null ? heads : s.heads(), kvHeads != null ? kvHeads : s.kvHeads(), ffn != null ? ffn : s.ffn());
            if (context != null) {
                s = s.withContextLength(context);
            }
            if (vocabFrom != null) {
                s = s.withVocabulary(new SynthSpec.CopiedFrom(vocabFrom));
            } else if (vocabSize != null) {
                s = s.withVocabulary(new SynthSpec.Generated(family, vocabSize));
            }
            s = s.withTensorType(GgmlType.valueOf(type.toUpperCase(java.util.Locale.ROOT))).withSeed(seed);
            if (name != null) {
                s = s.withName(name);
            }
            var out = spec.commandLine().getOut();
            Path target = quantize == null ? output : output.resolveSibling(output.getFileName() + ".f.tmp");
            int[] lastTenth = {-1};
            SyntheticModels.write(s, target, fraction -> {
                int tenth = (int) (fraction * 10);
                if (tenth > lastTenth[0]) {
                    lastTenth[0] = tenth;
                    out.printf("writing %s: %d%%%n", target.getFileName(), tenth * 10);
                    out.flush();
                }
            });
            if (quantize != null) {
                try (ForgeRuntime runtime = ForgeRuntime.start(common.runtimeConfig())) {
                    ModelQuantizer quantizer = runtime.backend().quantizer().orElseThrow(() -> new ForgeException(
                            "backend " + runtime.backend().name() + " cannot quantize"));
                    out.printf("quantizing to %s ...%n", quantize);
                    out.flush();
                    quantizer.quantize(target, output, quantize, Math.max(1, Runtime.getRuntime().availableProcessors()));
                } finally {
                    Files.deleteIfExists(target);
                }
            }
            out.printf("wrote %s (%d bytes): %s %dx%d, %d heads/%d kv, ffn %d, %s%n", output, Files.size(output),
                    s.architecture(), s.embedding(), s.layers(), s.heads(), s.kvHeads(), s.ffn(),
                    quantize != null ? quantize : s.tensorType());
            return 0;
        }
    }
}
