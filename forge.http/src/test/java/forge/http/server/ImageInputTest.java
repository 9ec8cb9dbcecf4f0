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
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
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
        assertEquals(400, bomb.statusCode(), bomb.body());
        assertTrue(
                Json.parse(bomb.body().getBytes(StandardCharsets.UTF_8))
                        .get("error")
                        .asText()
                        .contains("messages[2].images[1] is 100000x100000 pixels"),
                bomb.body());
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
                error.get("message").asText().contains("model tiny-text has no vision projector loaded"),
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
        assertEquals(400, ollama.statusCode(), ollama.body());
        assertTrue(
                Json.parse(ollama.body().getBytes(StandardCharsets.UTF_8))
                        .get("error")
                        .asText()
                        .contains("has no vision projector"),
                ollama.body());
        HttpResponse<String> generate = http.post("/api/generate", """
                {"model": "tiny-text", "stream": false, "prompt": "what is it?", "images": ["%s"]}
                """.formatted(b64));
        assertEquals(400, generate.statusCode(), generate.body());
        assertTrue(
                Json.parse(generate.body().getBytes(StandardCharsets.UTF_8))
                        .get("error")
                        .asText()
                        .contains("has no vision projector"),
                generate.body());
        // and the server still serves text
        HttpResponse<String> text = http.post("/v1/chat/completions", """
                {"model": "tiny-text", "max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}
                """);
        assertEquals(200, text.statusCode(), text.body());
    }
}
