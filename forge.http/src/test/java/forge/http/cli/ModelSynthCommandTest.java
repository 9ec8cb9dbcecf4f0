package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.lib.gguf.GgufFile;
import forge.lib.gguf.GgufReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code forge model synth --mmproj}: a text model and a vision projector of its width, for tests and benches. */
class ModelSynthCommandTest {

    @TempDir
    Path dir;

    /**
     * A projector as wide as the model: its {@code clip_n_mmproj_embd} is one of a tensor's
     * dimensions (an mlp projector's mm.2.bias length, a qwen2a projector's mm.a.fc.weight ne[1]).
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            mlp    | gemma | mlp projector, 16 embeddings at 16 positions an image of 32x32 | mm.2.bias      | 96
            qwen2a | qwen  | qwen2a audio projector, 750 embeddings a 30-second window     | mm.a.fc.weight | 32 96
            """)
    void writesAProjectorAsWideAsTheModel(
            String projector, String family, String printed, String widthTensor, String dims) {
        String name = "tiny-" + projector;
        GgufFile header = synth(
                name, "--family " + family + " --embd 96 --heads 4 --kv-heads 2 --mmproj-family " + projector, printed);
        assertEquals(projector, header.metadata().string("clip.projector_type").orElseThrow());
        assertEquals(
                Arrays.stream(dims.split(" ")).map(Long::valueOf).toList(),
                header.tensor(widthTensor).orElseThrow().dims());
        GgufFile text = GgufReader.read(dir.resolve(name + ".gguf"));
        assertEquals(
                96L,
                text.metadata()
                        .integer(text.metadata().architecture().orElseThrow() + ".embedding_length")
                        .orElseThrow());
    }

    @Test
    void anMRopeProjectorComesWithAQwen2vlTextModel() {
        GgufFile header = synth(
                "tiny-qwen2vl",
                "--mmproj-family qwen2vl_merger",
                "qwen2vl_merger projector, 16 embeddings at 4 positions an image of 64x64");
        assertEquals(
                "qwen2vl_merger",
                header.metadata().string("clip.projector_type").orElseThrow());
        GgufFile text = GgufReader.read(dir.resolve("tiny-qwen2vl.gguf"));
        assertEquals("qwen2vl", text.metadata().architecture().orElseThrow(), "the architecture M-RoPE needs");
        assertEquals(
                4L,
                text.metadata().arrayLength("qwen2vl.rope.dimension_sections").orElseThrow());
    }

    @Test
    void writesAProjectorOfTheSizeGivenForBenchmarks() {
        // 224 pixels in 14-pixel patches: 16x16 patches, pooled by 4 per side into 4x4 embeddings
        GgufFile header = synth(
                "bench",
                "--family gemma --mmproj-size 128:3:224",
                "gemma3 projector, 16 embeddings at 16 positions an image of 224x224");
        assertEquals(
                128L, header.metadata().integer("clip.vision.embedding_length").orElseThrow());
        assertEquals(3L, header.metadata().integer("clip.vision.block_count").orElseThrow());
        StringWriter err = new StringWriter();
        assertEquals(
                2,
                new CommandLine(new ModelCommand.Synth())
                        .setErr(new PrintWriter(err))
                        .execute(
                                "-o",
                                dir.resolve("bench.gguf").toString(),
                                "--mmproj",
                                dir.resolve("mmproj-bench.gguf").toString(),
                                "--mmproj-size",
                                "128:3:200"));
        assertTrue(err.toString().contains("must be a multiple of 56"), err.toString());
    }

    /**
     * Runs {@code forge model synth -o NAME.gguf --mmproj mmproj-NAME.gguf FLAGS} in the test's
     * folder ({@code flags} split at spaces), asserts that it succeeds and prints {@code printed},
     * and returns the projector's header.
     */
    private GgufFile synth(String name, String flags, String printed) {
        Path projector = dir.resolve("mmproj-" + name + ".gguf");
        List<String> args = new ArrayList<>(
                List.of("-o", dir.resolve(name + ".gguf").toString(), "--mmproj", projector.toString()));
        args.addAll(List.of(flags.split(" ")));
        StringWriter out = new StringWriter();
        int rc = new CommandLine(new ModelCommand.Synth())
                .setOut(new PrintWriter(out))
                .execute(args.toArray(String[]::new));
        assertEquals(0, rc, out.toString());
        assertTrue(out.toString().contains(printed), out.toString());
        return GgufReader.read(projector);
    }
}
