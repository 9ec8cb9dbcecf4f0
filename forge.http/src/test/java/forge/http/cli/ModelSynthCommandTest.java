package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.lib.gguf.GgufFile;
import forge.lib.gguf.GgufReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code forge model synth --mmproj}: a text model and a vision projector of its width, for tests and benches. */
class ModelSynthCommandTest {

    @TempDir
    Path dir;

    @Test
    void writesAProjectorAsWideAsTheModel() {
        Path model = dir.resolve("tiny.gguf");
        Path projector = dir.resolve("mmproj-tiny.gguf");
        StringWriter out = new StringWriter();
        int rc = new CommandLine(new ModelCommand.Synth())
                .setOut(new PrintWriter(out))
                .execute(
                        "-o",
                        model.toString(),
                        "--family",
                        "gemma",
                        "--embd",
                        "96",
                        "--heads",
                        "4",
                        "--kv-heads",
                        "2",
                        "--mmproj",
                        projector.toString(),
                        "--mmproj-family",
                        "mlp");
        assertEquals(0, rc, out.toString());
        assertTrue(out.toString().contains("mlp projector, 16 embeddings an image of 32x32"), out.toString());
        GgufFile header = GgufReader.read(projector);
        assertEquals("mlp", header.metadata().string("clip.projector_type").orElseThrow());
        // clip_n_mmproj_embd of an mlp projector is mm.2.bias's length: the model's width
        assertEquals(List.of(96L), header.tensor("mm.2.bias").orElseThrow().dims());
        assertEquals(
                96L,
                GgufReader.read(model)
                        .metadata()
                        .integer("llama.embedding_length")
                        .orElseThrow());
    }

    @Test
    void anAudioProjectorIsWrittenAsWideAsTheModel() {
        Path model = dir.resolve("tiny-audio.gguf");
        Path projector = dir.resolve("mmproj-tiny-audio.gguf");
        StringWriter out = new StringWriter();
        int rc = new CommandLine(new ModelCommand.Synth())
                .setOut(new PrintWriter(out))
                .execute(
                        "-o",
                        model.toString(),
                        "--family",
                        "qwen",
                        "--embd",
                        "96",
                        "--heads",
                        "4",
                        "--kv-heads",
                        "2",
                        "--mmproj",
                        projector.toString(),
                        "--mmproj-family",
                        "qwen2a");
        assertEquals(0, rc, out.toString());
        assertTrue(
                out.toString().contains("qwen2a audio projector, 750 embeddings a 30-second window"), out.toString());
        GgufFile header = GgufReader.read(projector);
        assertEquals("qwen2a", header.metadata().string("clip.projector_type").orElseThrow());
        // clip_n_mmproj_embd of a qwen2a projector is mm.a.fc.weight's ne[1]: the model's width
        assertEquals(
                List.of(32L, 96L), header.tensor("mm.a.fc.weight").orElseThrow().dims());
    }
}
