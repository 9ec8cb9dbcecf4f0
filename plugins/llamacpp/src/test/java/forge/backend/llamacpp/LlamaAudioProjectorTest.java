package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.BackendException;
import forge.api.backend.LoadProgress;
import forge.api.backend.ModelLoadParams;
import forge.api.template.ChatImage;
import forge.backend.llamacpp.natives.LlamaNatives;
import forge.lib.gguf.synth.SynthImages;
import forge.lib.gguf.synth.SynthProjector;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A synthetic audio projector ({@code qwen2a}: a random-weight Whisper encoder) is one libmtmd
 * loads, warms up on a whole 30-second window, and reports as reading audio and not images
 * ({@code mtmd_support_audio}), which is what the doors' refusal of audio to a model without it
 * reads.
 */
class LlamaAudioProjectorTest {

    @Test
    void aQwen2aProjectorLoadsAndReadsAudioOnly() {
        LlamaHome.backend();
        Path libmtmd = LlamaNatives.in(LlamaHome.lib())
                .mtmd()
                .orElseThrow(() -> new AssertionError("no libmtmd beside " + LlamaHome.lib() + " (mtmd.sh)"));
        Path file = LlamaHome.models().resolve("mmproj-qwen2a.gguf");
        SynthProjector.tiny("qwen2a", 64).write(file);
        try (LlamaModel model = (LlamaModel)
                LlamaHome.backend().load(ModelLoadParams.of(LlamaHome.tinyModel("gemma")), LoadProgress.NONE)) {
            LlamaProjector projector = model.loadProjector(file, libmtmd, 2, false);
            assertTrue(projector.audio(), "mtmd_support_audio");
            assertFalse(projector.vision(), "mtmd_support_vision");
            assertEquals(ChatImage.MARKER, projector.marker());
            BackendException e = assertThrows(
                    BackendException.class,
                    () -> projector.tokenize(
                            "look: " + projector.marker(),
                            List.of(ChatImage.of(SynthImages.png(8, 8, 1))),
                            true,
                            1 << 20));
            assertTrue(e.getMessage().contains("does not read images"), e.getMessage());
        }
    }
}
