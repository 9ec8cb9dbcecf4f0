package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.http.cli.Http;
import forge.http.cli.TestServer;
import forge.lib.gguf.synth.SynthImages;
import forge.lib.gguf.synth.SynthProjector;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * OpenAI's {@code input_audio} end to end: a text model given a synthetic audio projector
 * ({@code qwen2a}, with {@code --mmproj}) reads a WAV clip, whose embeddings count in the usage;
 * a model whose projector reads images only, or that has none, refuses audio with a 400 that
 * says so, and the audio-only model refuses images the same way.
 */
class AudioEndToEndTest {

    @AutoClose
    static TestServer server;

    static Http http;

    @BeforeAll
    static void start() throws Exception {
        Path audio = TestServer.model("tiny-audio", SynthSpec.tiny("qwen"));
        Path audioProjector = audio.resolveSibling("qwen2a-projector.gguf");
        SynthProjector.tiny("qwen2a", 64).write(audioProjector);
        Path store = Files.createTempDirectory("forge-audio-store-");
        Path visionFolder = Files.createDirectories(store.resolve("vision"));
        Files.copy(TestServer.model("tiny-vision", SynthSpec.tiny("qwen")), visionFolder.resolve("tiny-vision.gguf"));
        SynthProjector.tiny("mlp", 64).write(visionFolder.resolve("mmproj-tiny-vision.gguf"));
        Path textFolder = Files.createDirectories(store.resolve("text"));
        Files.copy(TestServer.model("tiny-text", SynthSpec.tiny("qwen")), textFolder.resolve("tiny-text.gguf"));
        server = TestServer.serve(
                audio, "-c 2048 -np 1 -t 1", "--mmproj", audioProjector.toString(), "--models-dir", store.toString());
        http = server.http();
    }

    static String body(String model, String part) {
        return "{\"model\": \"" + model + "\", \"max_tokens\": 3, \"temperature\": 0, \"messages\": [{\"role\":"
                + " \"user\", \"content\": [{\"type\": \"text\", \"text\": \"what is it? \"}"
                + (part == null ? "" : ", " + part) + "]}]}";
    }

    static String audioPart(byte[] wav) {
        return "{\"type\": \"input_audio\", \"input_audio\": {\"data\": \""
                + Base64.getEncoder().encodeToString(wav) + "\", \"format\": \"wav\"}}";
    }

    static JsonNode json(HttpResponse<String> r) {
        return Json.parse(r.body().getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aClipReachesAModelWhoseProjectorReadsAudio() throws Exception {
        byte[] clip = ImageInputTest.wav(16_000, 1, 16_000); // a second of silence
        HttpResponse<String> with = http.post("/v1/chat/completions", body("tiny-audio", audioPart(clip)));
        assertEquals(200, with.statusCode(), with.body());
        HttpResponse<String> without = http.post("/v1/chat/completions", body("tiny-audio", null));
        assertEquals(200, without.statusCode(), without.body());
        int added = json(with).get("usage").get("prompt_tokens").asInt()
                - json(without).get("usage").get("prompt_tokens").asInt();
        // a 30-second window's embeddings, and <|audio_bos|>/<|audio_eos|> spelled by this tiny vocabulary
        int window = SynthProjector.TOKENS_PER_AUDIO_WINDOW;
        assertTrue(added >= window && added <= window + 40, "the clip counts " + window + " embeddings: " + added);
    }

    @Test
    void aModelThatReadsNoAudioSaysSo() throws Exception {
        byte[] clip = ImageInputTest.wav(16_000, 1, 8_000);
        HttpResponse<String> text = http.post("/v1/chat/completions", body("tiny-text", audioPart(clip)));
        assertEquals(400, text.statusCode(), text.body());
        assertTrue(
                json(text).get("error").get("message").asText().contains("model tiny-text has no audio projector"),
                text.body());
        HttpResponse<String> vision = http.post("/v1/chat/completions", body("tiny-vision", audioPart(clip)));
        assertEquals(400, vision.statusCode(), vision.body());
        assertTrue(
                json(vision).get("error").get("message").asText().contains("(its projector reads images only)"),
                vision.body());
        // and the audio model reads no images
        String image = "{\"type\": \"image_url\", \"image_url\": {\"url\": \"data:image/png;base64,"
                + Base64.getEncoder().encodeToString(SynthImages.png(16, 16, 1)) + "\"}}";
        HttpResponse<String> picture = http.post("/v1/chat/completions", body("tiny-audio", image));
        assertEquals(400, picture.statusCode(), picture.body());
        assertTrue(picture.body().contains("has no vision projector"), picture.body());
        // nothing else is harmed
        assertEquals(
                200, http.post("/v1/chat/completions", body("tiny-audio", null)).statusCode());
    }
}
