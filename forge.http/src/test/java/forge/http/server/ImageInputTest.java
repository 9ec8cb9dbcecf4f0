package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.template.ChatImage;
import forge.http.cli.Http;
import forge.http.cli.TestServer;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Images on every door: OpenAI chat's {@code image_url} parts, Anthropic's {@code image} blocks and
 * Responses' {@code input_image} all become the same {@link ChatImage}s with a marker in the text;
 * what can be refused without decoding is a 400 in the door's terms; and a model without a
 * projector says so.
 */
class ImageInputTest {

    @AutoClose
    static TestServer server;

    static Http http;

    /** A PNG signature and IHDR declaring {@code width} x {@code height}: all a header check reads. */
    static byte[] png(int width, int height) {
        ByteBuffer b = ByteBuffer.allocate(33);
        b.put(new byte[] {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A});
        b.putInt(13).put(new byte[] {'I', 'H', 'D', 'R'}).putInt(width).putInt(height);
        b.put(new byte[] {8, 2, 0, 0, 0}).putInt(0);
        return b.array();
    }

    static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    static String dataUri(byte[] bytes) {
        return "data:image/png;base64," + base64(bytes);
    }

    @BeforeAll
    static void start() {
        server = TestServer.start(
                "-m", TestServer.model("tiny-text", SynthSpec.tiny("qwen")).toString(), "-c", "512", "-t", "1");
        http = server.http();
    }

    private static ChatRequest chat(String content) {
        return ChatRequest.parse(Fields.of(
                Json.parse(("{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": " + content + "}]}")
                        .getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    void anImageUrlPartBecomesAMarkerAndAnImage() {
        byte[] a = png(20, 10);
        byte[] b = png(30, 10);
        ChatRequest r = chat(
                "[{\"type\": \"text\", \"text\": \"compare \"}, {\"type\": \"image_url\", \"image_url\": {\"url\": \""
                        + dataUri(a)
                        + "\"}}, {\"type\": \"text\", \"text\": \" with \"}, {\"type\": \"image_url\", \"image_url\": \""
                        + dataUri(b) + "\"}]");
        assertEquals(
                "compare " + ChatImage.MARKER + " with " + ChatImage.MARKER,
                r.prompt().messages().getFirst().content());
        assertEquals(List.of(ChatImage.of(a), ChatImage.of(b)), r.prompt().images());
        // a model's own Jinja template sees the marker as a text part, not the image's bytes
        String wire = r.prompt().messages().getFirst().wire();
        assertTrue(wire.contains("{\"type\":\"text\",\"text\":\"" + ChatImage.MARKER + "\"}"), wire);
        assertTrue(!wire.contains(base64(a)), wire);
    }

    /** Base64 wrapped in lines (MIME's 76 columns, CRLF) reads as the same image as unwrapped. */
    @Test
    void base64InLinesIsTheSameImage() {
        byte[] a = png(40, 20);
        String wrapped = Base64.getMimeEncoder().encodeToString(Arrays.copyOf(a, 200)); // over 76 columns
        assertTrue(wrapped.contains("\r\n"), wrapped);
        ChatRequest r = chat("[{\"type\": \"image_url\", \"image_url\": {\"url\": \"data:image/png;base64,"
                + wrapped.replace("\r\n", "\\r\\n") + "\"}}]");
        assertEquals(List.of(ChatImage.of(Arrays.copyOf(a, 200))), r.prompt().images());
    }

    @Test
    void anAnthropicImageBlockAndAResponsesInputImageBecomeTheSameImage() {
        byte[] a = png(20, 10);
        ChatRequest anthropic = MessagesRequest.parse(
                Fields.of(Json.parse(("""
                {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": [
                  {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "%s"}},
                  {"type": "text", "text": "what is it?"}]}]}
                """.formatted(base64(a))).getBytes(StandardCharsets.UTF_8))));
        assertEquals(
                ChatImage.MARKER + "what is it?",
                anthropic.prompt().messages().getLast().content());
        assertEquals(List.of(ChatImage.of(a)), anthropic.prompt().images());
        ChatRequest responses = ResponsesRequest.parse(
                        Fields.of(Json.parse(("""
                {"model": "m", "input": [{"role": "user", "content": [
                  {"type": "input_text", "text": "what is it? "}, {"type": "input_image", "image_url": "%s"}]}]}
                """.formatted(dataUri(a))).getBytes(StandardCharsets.UTF_8))),
                        new ResponseStore())
                .chat();
        assertEquals(
                "what is it? " + ChatImage.MARKER,
                responses.prompt().messages().getLast().content());
        assertEquals(List.of(ChatImage.of(a)), responses.prompt().images());
    }

    /** A PCM WAV: RIFF, a fmt chunk (16-bit, {@code rate} Hz, {@code channels}), {@code samples} frames of silence. */
    static byte[] wav(int rate, int channels, int samples) {
        int data = samples * channels * 2;
        ByteBuffer b = ByteBuffer.allocate(44 + data).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {'R', 'I', 'F', 'F'}).putInt(36 + data).put(new byte[] {'W', 'A', 'V', 'E'});
        b.put(new byte[] {'f', 'm', 't', ' '}).putInt(16).putShort((short) 1).putShort((short) channels);
        b.putInt(rate)
                .putInt(rate * channels * 2)
                .putShort((short) (channels * 2))
                .putShort((short) 16);
        b.put(new byte[] {'d', 'a', 't', 'a'}).putInt(data);
        return b.array();
    }

    /** {@code frames} MPEG-1 layer III frames (128 kbit/s, 44.1 kHz: 417 bytes, 1152 samples each), after an ID3v2 tag. */
    static byte[] mp3(int frames) {
        ByteBuffer b = ByteBuffer.allocate(10 + 20 + frames * 417);
        b.put(new byte[] {'I', 'D', '3', 4, 0, 0, 0, 0, 0, 20}).put(new byte[20]);
        for (int i = 0; i < frames; i++) {
            b.put(new byte[] {(byte) 0xFF, (byte) 0xFB, (byte) 0x90, 0x00}).put(new byte[413]);
        }
        return b.array();
    }

    @Test
    void anAudioClipsLengthIsReadFromItsContainer() {
        ChatImage wav = ChatImage.of(wav(16_000, 1, 48_000));
        assertTrue(wav.isAudio());
        assertEquals(Optional.of("wav"), wav.audioFormat());
        assertEquals(Optional.empty(), wav.format(), "audio is no image format");
        assertEquals(3.0, wav.seconds().orElseThrow(), 1e-9);
        assertEquals(1.5, ChatImage.of(wav(16_000, 2, 24_000)).seconds().orElseThrow(), 1e-9);
        // samples cut short of what the data chunk declares, or no fmt chunk: no length
        byte[] whole = wav(16_000, 1, 1000);
        assertEquals(Optional.empty(), ChatImage.of(Arrays.copyOf(whole, 500)).seconds());
        assertEquals(Optional.empty(), ChatImage.of(Arrays.copyOf(whole, 30)).seconds());
        ChatImage mp3 = ChatImage.of(mp3(100));
        assertEquals(Optional.of("mp3"), mp3.audioFormat());
        assertEquals(100 * 1152 / 44100.0, mp3.seconds().orElseThrow(), 1e-9);
        // a frame cut short does not count; no whole frame, no length
        assertEquals(
                99 * 1152 / 44100.0,
                ChatImage.of(Arrays.copyOf(mp3(100), 30 + 99 * 417 + 200))
                        .seconds()
                        .orElseThrow(),
                1e-9);
        assertEquals(Optional.empty(), ChatImage.of(Arrays.copyOf(mp3(1), 100)).seconds());
        assertTrue(!ChatImage.of(png(8, 8)).isAudio());
        assertTrue(
                !ChatImage.of(new byte[] {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xE0})
                        .isAudio(),
                "a JPEG");
    }

    /** OpenAI's input_audio: the same reader, a marker and a media part; its container checked from the header. */
    @Test
    void anInputAudioPartIsAMediaPartCheckedByItsHeader() {
        byte[] wav = wav(16_000, 1, 16_000);
        ChatRequest r = chat("[{\"type\": \"text\", \"text\": \"transcribe: \"}, " + audio(base64(wav), "wav") + "]");
        assertEquals(
                "transcribe: " + ChatImage.MARKER,
                r.prompt().messages().getFirst().content());
        assertEquals(List.of(ChatImage.of(wav)), r.prompt().images());
        assertTrue(r.prompt().images().getFirst().isAudio());
        // the message a model's own template reads holds the marker, not the clip
        String wire = r.prompt().messages().getFirst().wire();
        assertTrue(wire.contains(ChatImage.MARKER) && !wire.contains(base64(wav)), wire);
        assertEquals(
                List.of(ChatImage.of(mp3(40))),
                chat("[" + audio(base64(mp3(40)), "mp3") + "]").prompt().images());
        String at = "messages[0].content[0].input_audio";
        assertRefused(audio(base64(wav), "ogg"), at + ".format", "must be one of [wav, mp3]");
        assertRefused(audio("@@", "wav"), at + ".data", "is not valid base64");
        assertRefused(audio(base64(mp3(3)), "wav"), at + ".data", "is not WAV audio (it is MP3");
        assertRefused(audio(base64(png(4, 4)), "wav"), at + ".data", "is not WAV audio");
        assertRefused(audio(base64(Arrays.copyOf(wav, 1000)), "wav"), at + ".data", "truncated or malformed WAV audio");
        // ten minutes and a second, at a low byte rate
        assertRefused(audio(base64(wav(1000, 1, 601_000)), "wav"), at + ".data", "is 601.0 seconds long; at most 600");
        // an audio clip is no image
        assertRefused(part(dataUri(wav)), "messages[0].content[0].image_url.url", "is not a PNG, JPEG, GIF or BMP");
    }

    private static String audio(String data, String format) {
        return "{\"type\": \"input_audio\", \"input_audio\": {\"data\": \"" + data + "\", \"format\": \"" + format
                + "\"}}";
    }

    /** Ollama's images go through the same reader: a raw prompt cannot carry them, a bad one is named by its field. */
    @Test
    void ollamaImagesAreReadByTheSameReader() throws Exception {
        HttpResponse<String> raw = http.post("/api/generate", """
                {"model": "tiny-text", "stream": false, "raw": true, "prompt": "x", "images": ["%s"]}
                """.formatted(base64(png(8, 8))));
        assertEquals(400, raw.statusCode(), raw.body());
        assertTrue(raw.body().contains("cannot go with 'raw'"), raw.body());
        HttpResponse<String> bomb =
                http.post("/api/chat", """
                {"model": "tiny-text", "stream": false, "messages": [
                  {"role": "user", "content": "x"}, {"role": "assistant", "content": "y"},
                  {"role": "user", "content": "z", "images": ["%s", "%s"]}]}
                """.formatted(base64(png(8, 8)), base64(png(100_000, 100_000))));
        assertOllamaRefused(bomb, "messages[2].images[1] is 100000x100000 pixels");
        HttpResponse<String> mixed = http.post("/api/chat", """
                {"model": "tiny-text", "stream": false, "messages": [
                  {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "%s"}}]},
                  {"role": "user", "content": "z", "images": ["%s"]}]}
                """.formatted(dataUri(png(8, 8)), base64(png(8, 8))));
        assertEquals(400, mixed.statusCode(), mixed.body());
        assertTrue(mixed.body().contains("messages[0].content[0]"), mixed.body());
    }

    @Test
    void whatCanBeRefusedWithoutDecodingIsA400NamingTheField() {
        String at = "messages[0].content[0].image_url.url";
        assertRefused(
                part("https://example.invalid/cat.png"),
                at,
                "image URLs are not fetched unless the server runs with --allow-image-urls");
        assertRefused(part("data:image/png;base64,@@@"), at, "is not valid base64");
        assertRefused(part("data:text/plain,hello"), at, "must be a base64 data URI");
        assertRefused(part(dataUri("plain text".getBytes())), at, "is not a PNG, JPEG, GIF or BMP image");
        byte[] webp = {'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', ' '};
        assertRefused(part(dataUri(webp)), at, "(WebP is not supported)");
        assertRefused(part(dataUri(Arrays.copyOf(png(4, 4), 20))), at, "truncated or malformed PNG");
        assertRefused(part(dataUri(png(100_000, 100_000))), at, "is 100000x100000 pixels; at most 67108864");
        String many =
                "[" + String.join(", ", Collections.nCopies(Images.MAX_IMAGES + 1, part(dataUri(png(2, 2))))) + "]";
        ApiError e = assertThrows(ApiError.class, () -> chat(many));
        assertTrue(e.getMessage().contains("at most 16 images"), e.getMessage());
        // Anthropic's own field names
        ApiError a = assertThrows(
                ApiError.class,
                () -> MessagesRequest.parse(Fields.of(Json.parse("""
                {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": [
                  {"type": "image", "source": {"type": "base64", "media_type": "image/webp", "data": "AAAA"}}]}]}
                """.getBytes(StandardCharsets.UTF_8)))));
        assertEquals("messages[0].content[0].source.media_type", a.param());
    }

    private static String part(String url) {
        return "{\"type\": \"image_url\", \"image_url\": {\"url\": \"" + url + "\"}}";
    }

    /** {@code r} is a 400 in Ollama's error shape, {@code {"error": MESSAGE}}, whose message says {@code why}. */
    private static void assertOllamaRefused(HttpResponse<String> r, String why) {
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(
                Json.parse(r.body().getBytes(StandardCharsets.UTF_8))
                        .get("error")
                        .asText()
                        .contains(why),
                r.body());
    }

    /** A chat whose user message is the one content part {@code part} is a 400 naming {@code param}, saying {@code why}. */
    private static void assertRefused(String part, String param, String why) {
        ApiError e = assertThrows(ApiError.class, () -> chat("[" + part + "]"));
        assertEquals(400, e.status());
        assertEquals(param, e.param());
        assertTrue(e.getMessage().contains(why), e.getMessage());
    }

    /** Every door answers an image to a model without a projector with a 400 in its own shape. */
    @Test
    void aModelWithoutAProjectorSaysSoOnEveryDoor() throws Exception {
        String uri = dataUri(png(8, 8));
        HttpResponse<String> openai = http.post("/v1/chat/completions", """
                {"model": "tiny-text", "max_tokens": 4, "messages": [{"role": "user", "content": [
                  {"type": "image_url", "image_url": {"url": "%s"}}]}]}
                """.formatted(uri));
        assertEquals(400, openai.statusCode(), openai.body());
        JsonNode error =
                Json.parse(openai.body().getBytes(StandardCharsets.UTF_8)).get("error");
        assertTrue(
                error.get("message").asText().contains("model tiny-text has no vision projector; give --mmproj"),
                openai.body());
        HttpResponse<String> anthropic = http.post("/v1/messages", """
                {"model": "tiny-text", "max_tokens": 4, "messages": [{"role": "user", "content": [
                  {"type": "image", "source": {"type": "url", "url": "%s"}}]}]}
                """.formatted(uri));
        assertEquals(400, anthropic.statusCode(), anthropic.body());
        JsonNode body = Json.parse(anthropic.body().getBytes(StandardCharsets.UTF_8));
        assertEquals("error", body.get("type").asText(), anthropic.body());
        assertTrue(body.get("error").get("message").asText().contains("has no vision projector"), anthropic.body());
        HttpResponse<String> responses = http.post("/v1/responses", """
                {"model": "tiny-text", "input": [{"role": "user", "content": [{"type": "input_image", "image_url": "%s"}]}]}
                """.formatted(uri));
        assertEquals(400, responses.statusCode(), responses.body());
        assertTrue(responses.body().contains("has no vision projector"), responses.body());
        // Ollama's images, in Ollama's error shape, on both of its generating routes
        String b64 = base64(png(8, 8));
        HttpResponse<String> ollama = http.post("/api/chat", """
                {"model": "tiny-text", "stream": false, "messages": [
                  {"role": "user", "content": "what is it?", "images": ["%s"]}]}
                """.formatted(b64));
        assertOllamaRefused(ollama, "has no vision projector");
        HttpResponse<String> generate = http.post("/api/generate", """
                {"model": "tiny-text", "stream": false, "prompt": "what is it?", "images": ["%s"]}
                """.formatted(b64));
        assertOllamaRefused(generate, "has no vision projector");
        // and the server still serves text
        HttpResponse<String> text = http.post("/v1/chat/completions", """
                {"model": "tiny-text", "max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}
                """);
        assertEquals(200, text.statusCode(), text.body());
    }
}
