package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.BackendException;
import forge.api.backend.ContextParams;
import forge.api.backend.FlashAttention;
import forge.api.backend.KvCacheType;
import forge.api.backend.TokenSampler;
import forge.api.sampler.SamplingParams;
import forge.api.template.ChatImage;
import forge.backend.llamacpp.natives.LlamaNatives;
import forge.lib.gguf.synth.SynthImages;
import forge.lib.gguf.synth.SynthProjector;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A synthetic audio projector ({@code qwen2a}: a random-weight Whisper encoder) is one libmtmd
 * loads beside a 64-wide text model, warms up on a whole 30-second window, and reports as reading audio and not images
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
        try (LlamaModel model = (LlamaModel) LlamaHome.loadTiny("qwen")) {
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

    /** A 16 kHz mono 16-bit PCM WAV of {@code seconds}, a sine of {@code hz} (0: silence). */
    static byte[] wav(double seconds, double hz) {
        int samples = (int) (16_000 * seconds);
        ByteBuffer b = ByteBuffer.allocate(44 + samples * 2).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {'R', 'I', 'F', 'F'}).putInt(36 + samples * 2).put(new byte[] {'W', 'A', 'V', 'E'});
        b.put(new byte[] {'f', 'm', 't', ' '}).putInt(16).putShort((short) 1).putShort((short) 1);
        b.putInt(16_000).putInt(32_000).putShort((short) 2).putShort((short) 16);
        b.put(new byte[] {'d', 'a', 't', 'a'}).putInt(samples * 2);
        for (int i = 0; i < samples; i++) {
            b.putShort((short) Math.round(12_000 * Math.sin(2 * Math.PI * hz * i / 16_000)));
        }
        return b.array();
    }

    /**
     * Audio runs end to end: a WAV clip decoded by libmtmd's helper, one audio chunk of a whole
     * window's embeddings between the text, encoded and decoded into the sequence; the same clip
     * gives the same next-token distribution in a fresh context, another clip another one (as
     * llama-server gives for the same pair).
     */
    @Test
    void anAudioClipIsEncodedAndDecidesTheNextToken() {
        Path libmtmd = LlamaNatives.in(LlamaHome.lib()).mtmd().orElseThrow();
        Path file = LlamaHome.models().resolve("mmproj-qwen2a-run.gguf");
        SynthProjector.tiny("qwen2a", 64).write(file);
        try (LlamaModel model = (LlamaModel) LlamaHome.loadTiny("qwen")) {
            LlamaProjector projector = model.loadProjector(file, libmtmd, 2, false);
            String text = "listen: " + projector.marker() + " what is it?";
            byte[] tone = wav(1.0, 440);
            try (MediaPrompt prompt = projector.tokenize(text, List.of(ChatImage.of(tone)), true, 1 << 20)) {
                List<MediaPrompt.Media> media = prompt.chunks().stream()
                        .filter(MediaPrompt.Media.class::isInstance)
                        .map(MediaPrompt.Media.class::cast)
                        .toList();
                assertEquals(1, media.size(), prompt.chunks().toString());
                assertEquals(MediaPrompt.Kind.AUDIO, media.getFirst().kind());
                assertEquals(
                        SynthProjector.TOKENS_PER_AUDIO_WINDOW, media.getFirst().embeddings());
                assertEquals(ChatImage.sha256(tone), media.getFirst().id());
            }
            float[] first = logprobsAfter(model, projector, text, tone);
            float[] again = logprobsAfter(model, projector, text, tone);
            float[] other = logprobsAfter(model, projector, text, wav(1.0, 0));
            assertArrayEquals(first, again, "same clip, same distribution");
            assertFalse(
                    Arrays.equals(first, other),
                    "another clip, another distribution: " + Arrays.toString(first) + " " + Arrays.toString(other));
            // a clip cut short is refused from its header, before any native code reads it
            byte[] broken = Arrays.copyOf(tone, 1000);
            BackendException e = assertThrows(
                    BackendException.class,
                    () -> projector
                            .tokenize(text, List.of(ChatImage.of(broken)), true, 1 << 20)
                            .close());
            assertTrue(e.getMessage().contains("audio clip 0"), e.getMessage());
        }
    }

    private static float[] logprobsAfter(LlamaModel model, LlamaProjector projector, String text, byte[] wav) {
        try (LlamaContext ctx = (LlamaContext) model.newContext(
                        new ContextParams(1024, 512, 512, 1, 2, 2, FlashAttention.AUTO, KvCacheType.F16, true, false));
                TokenSampler sampler = ctx.sampler(SamplingParams.GREEDY);
                MediaPrompt prompt = projector.tokenize(text, List.of(ChatImage.of(wav)), true, 1 << 20)) {
            LlamaProjector.Evaluation done = projector.eval(ctx, prompt, 0, 0, 0, true);
            assertEquals(prompt.positions(), done.position());
            int token = sampler.sample(done.logitsIndex());
            return LlamaProjectorTest.top5(ctx.logprobs(done.logitsIndex(), token, 5));
        }
    }
}
