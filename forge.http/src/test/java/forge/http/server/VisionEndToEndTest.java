package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.ForgeException;
import forge.http.cli.Http;
import forge.http.cli.TestServer;
import forge.lib.gguf.synth.SynthImages;
import forge.lib.gguf.synth.SynthProjector;
import forge.lib.gguf.synth.SynthSpec;
import forge.runtime.engine.Engine;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Images run end to end over HTTP on synthetic model pairs of both projector families: a
 * {@code gemma3} projector given with {@code --mmproj} to the {@code -m} model, an {@code mlp}
 * projector found beside its model in a models folder, a projector of another width found beside
 * a third model (refused at load, the model listed as failed with llama.cpp's reason), and a text
 * model without one. Every door reads the image, the usage counts its embeddings, a returning
 * turn encodes nothing again, and a bad image is a 400 that harms nothing else.
 */
class VisionEndToEndTest {

    @AutoClose
    static TestServer server;

    static Http http;

    /** The models folder: tiny-mlp with its projector, tiny-wide with one of another width, tiny-text. */
    static Path store;

    /** The -m model and the projector given to it. */
    static Path gemma;

    static Path gemmaProjector;

    static final int TOKENS_PER_IMAGE = SynthProjector.tiny("mlp", 64).tokensPerImage();

    @BeforeAll
    static void start() throws Exception {
        gemma = TestServer.model("tiny-gemma", SynthSpec.tiny("gemma"));
        gemmaProjector = gemma.resolveSibling("gemma3-projector.gguf");
        SynthProjector.tiny("gemma3", 64).write(gemmaProjector);
        store = Files.createTempDirectory("forge-vision-store-");
        Path mlpFolder = Files.createDirectories(store.resolve("mlp"));
        Files.copy(TestServer.model("tiny-mlp", SynthSpec.tiny("qwen")), mlpFolder.resolve("tiny-mlp.gguf"));
        SynthProjector.tiny("mlp", 64).write(mlpFolder.resolve("mmproj-tiny-mlp.gguf"));
        Path wideFolder = Files.createDirectories(store.resolve("wide"));
        Files.copy(TestServer.model("tiny-wide", SynthSpec.tiny("qwen")), wideFolder.resolve("tiny-wide.gguf"));
        SynthProjector.tiny("mlp", 64).withTextEmbedding(128).write(wideFolder.resolve("mmproj-tiny-wide.gguf"));
        Path textFolder = Files.createDirectories(store.resolve("text"));
        Files.copy(TestServer.model("tiny-text", SynthSpec.tiny("qwen")), textFolder.resolve("tiny-text.gguf"));
        server = TestServer.serve(
                gemma, "-c 1024 -np 2 -t 1", "--mmproj", gemmaProjector.toString(), "--models-dir", store.toString());
        http = server.http();
    }

    static String dataUri(byte[] png) {
        return "data:image/png;base64," + Base64.getEncoder().encodeToString(png);
    }

    /**
     * A body of OpenAI's chat completions and of Anthropic's messages alike, greedy and four tokens
     * long: the model, the text and the image's part (or nothing) to fill in.
     */
    private static final String MESSAGES = """
                {"model": "%s", "max_tokens": 4, "temperature": 0, "messages": [{"role": "user", "content": [
                  {"type": "text", "text": "%s"}%s]}]}
            """;

    /** A body of OpenAI's Responses, as {@link #MESSAGES}. */
    private static final String RESPONSES = """
                {"model": "%s", "max_output_tokens": 4, "temperature": 0, "input": [{"role": "user", "content": [
                  {"type": "input_text", "text": "%s"}%s]}]}
            """;

    /** Each door's image part, the PNG's base64 to fill in. */
    private static final String OPENAI_IMAGE =
            "{\"type\": \"image_url\", \"image_url\": {\"url\": \"data:image/png;base64,%s\"}}";

    private static final String ANTHROPIC_IMAGE =
            "{\"type\": \"image\", \"source\": {\"type\": \"base64\", \"media_type\": \"image/png\", \"data\": \"%s\"}}";

    private static final String RESPONSES_IMAGE =
            "{\"type\": \"input_image\", \"image_url\": \"data:image/png;base64,%s\"}";

    /** The body {@code door} with {@code model}, {@code text} and, unless null, {@code image} as {@code part}. */
    private static String body(String door, String part, String model, String text, byte[] image) {
        return door.formatted(
                model,
                text,
                image == null ? "" : ", " + part.formatted(Base64.getEncoder().encodeToString(image)));
    }

    /** An OpenAI chat body with the text and, unless null, the image. */
    static String openAi(String model, String text, byte[] image) {
        return body(MESSAGES, OPENAI_IMAGE, model, text, image);
    }

    /** {@code body} posted to {@code path} is refused with a 400 that says {@code why}. */
    static void assertRefused(Http http, String path, String body, String why) throws Exception {
        HttpResponse<String> r = http.post(path, body);
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains(why), r.body());
    }

    static JsonNode ok(HttpResponse<String> r) {
        assertEquals(200, r.statusCode(), r.body());
        return Json.parse(r.body().getBytes(StandardCharsets.UTF_8));
    }

    static Engine engine(String model) {
        return engine(server, model);
    }

    /** The engine that {@code server} runs {@code model} on. */
    static Engine engine(TestServer server, String model) {
        return server.running()
                .catalog()
                .find(model)
                .orElseThrow()
                .served()
                .orElseThrow()
                .engine();
    }

    @Test
    void anOpenAiImageUrlCountsItsEmbeddingsInUsageOnBothProjectorFamilies() throws Exception {
        byte[] image = SynthImages.png(40, 30, 11);
        for (String model : List.of("tiny-mlp", "tiny-gemma")) {
            JsonNode with = ok(http.post("/v1/chat/completions", openAi(model, "What is this? ", image)));
            JsonNode without = ok(http.post("/v1/chat/completions", openAi(model, "What is this? ", null)));
            int added = with.get("usage").get("prompt_tokens").asInt()
                    - without.get("usage").get("prompt_tokens").asInt();
            // the image's embeddings, and the text around its marker tokenized apart; gemma3 also
            // wraps them in "\n\n<start_of_image>" ... "<end_of_image>\n\n", which this tiny
            // vocabulary spells letter by letter (VisionPeerTest pins both counts to llama-server's)
            int wrapper = model.equals("tiny-gemma") ? 40 : 0;
            assertTrue(
                    added >= TOKENS_PER_IMAGE && added <= TOKENS_PER_IMAGE + wrapper + 8,
                    model + ": an image counts its " + TOKENS_PER_IMAGE + " embeddings: " + added + " in " + with);
            assertTrue(with.get("choices").get(0).get("message").has("content"), with.toString());
        }
    }

    /** An Anthropic body with the text and, unless null, the image. */
    static String anthropic(String model, String text, byte[] image) {
        return body(MESSAGES, ANTHROPIC_IMAGE, model, text, image);
    }

    /** A Responses body with the text and, unless null, the image. */
    static String responses(String model, String text, byte[] image) {
        return body(RESPONSES, RESPONSES_IMAGE, model, text, image);
    }

    /** Anthropic's prompt tokens: those computed, and those read from a cache. */
    static int anthropicPrompt(JsonNode message) {
        JsonNode u = message.get("usage");
        return u.get("input_tokens").asInt()
                + u.get("cache_read_input_tokens").asInt()
                + u.get("cache_creation_input_tokens").asInt();
    }

    @Test
    void anthropicAndResponsesReadTheImageAndCountItsEmbeddings() throws Exception {
        byte[] image = SynthImages.png(32, 32, 12);
        int anthropicAdded =
                anthropicPrompt(ok(http.post("/v1/messages", anthropic("tiny-mlp", "Describe it.", image))))
                        - anthropicPrompt(ok(http.post("/v1/messages", anthropic("tiny-mlp", "Describe it.", null))));
        assertTrue(anthropicAdded >= TOKENS_PER_IMAGE && anthropicAdded <= TOKENS_PER_IMAGE + 8, "" + anthropicAdded);
        JsonNode withImage = ok(http.post("/v1/responses", responses("tiny-mlp", "Describe it.", image)));
        int responsesAdded = withImage.get("usage").get("input_tokens").asInt()
                - ok(http.post("/v1/responses", responses("tiny-mlp", "Describe it.", null)))
                        .get("usage")
                        .get("input_tokens")
                        .asInt();
        assertTrue(responsesAdded >= TOKENS_PER_IMAGE && responsesAdded <= TOKENS_PER_IMAGE + 8, withImage.toString());
        // count_tokens renders the same body to the same prompt, its image included, and runs nothing
        JsonNode sent = ok(http.post("/v1/messages", anthropic("tiny-mlp", "Count me.", image)));
        JsonNode counted = ok(http.post("/v1/messages/count_tokens", anthropic("tiny-mlp", "Count me.", image)));
        assertEquals(anthropicPrompt(sent), counted.get("input_tokens").asInt(), counted.toString());
    }

    @Test
    void aReturningTurnWithTheSameImageEncodesNothingAgain() throws Exception {
        byte[] image = SynthImages.png(36, 36, 13);
        String first = openAi("tiny-gemma", "Look closely. ", image);
        JsonNode answer = ok(http.post("/v1/chat/completions", first));
        long encodes = engine("tiny-gemma").snapshot().mediaEncodes();
        String said = answer.get("choices").get(0).get("message").get("content").asText();
        String next = first.replace(
                "}]}]}",
                "}]}, {\"role\": \"assistant\", \"content\": " + Json.MAPPER.writeValueAsString(said)
                        + "}, {\"role\": \"user\", \"content\": \"And the colours?\"}]}");
        assertTrue(next.contains("And the colours?"), next);
        JsonNode second = ok(http.post("/v1/chat/completions", next));
        assertEquals(
                encodes,
                engine("tiny-gemma").snapshot().mediaEncodes(),
                "the second turn's image came from the slot's cells, not the encoder");
        int cached = second.get("usage")
                .get("prompt_tokens_details")
                .get("cached_tokens")
                .asInt();
        assertTrue(cached > TOKENS_PER_IMAGE, "the image's cells were reused: " + second);
        // another image in the same place is encoded: the cache compares images by their content
        ok(http.post("/v1/chat/completions", openAi("tiny-gemma", "Look closely. ", SynthImages.png(36, 36, 14))));
        assertEquals(encodes + 1, engine("tiny-gemma").snapshot().mediaEncodes());
    }

    @Test
    void imagesCountInTheContextCheckBeforeAnythingRuns() throws Exception {
        // a text that alone fits the slot (512 cells) with room for a few images but not for sixteen
        String text = "";
        int alone = 0;
        while (alone < 300) {
            text += "sun ".repeat(30);
            alone = ok(http.post("/v1/chat/completions", openAi("tiny-mlp", text, null)))
                    .get("usage")
                    .get("prompt_tokens")
                    .asInt();
        }
        assertTrue(alone < 512 && alone + 16 * TOKENS_PER_IMAGE > 512, "the text takes " + alone);
        StringBuilder parts = new StringBuilder("[{\"type\": \"text\", \"text\": \"" + text + "\"}");
        for (int i = 0; i < 16; i++) {
            parts.append(", {\"type\": \"image_url\", \"image_url\": {\"url\": \"")
                    .append(dataUri(SynthImages.png(16, 16, 100 + i)))
                    .append("\"}}");
        }
        long encodes = engine("tiny-mlp").snapshot().mediaEncodes();
        assertRefused(
                http,
                "/v1/chat/completions",
                "{\"model\": \"tiny-mlp\", \"stream\": true, \"max_tokens\": 4, \"messages\": [{\"role\":"
                        + " \"user\", \"content\": " + parts + "]}]}",
                "context_length_exceeded");
        assertEquals(encodes, engine("tiny-mlp").snapshot().mediaEncodes(), "nothing was encoded");
    }

    @Test
    void anImageThatDoesNotDecodeIsA400AndHarmsNothingElse() throws Exception {
        byte[] broken = SynthImages.png(32, 32, new byte[] {1, 2, 3, 4});
        assertRefused(http, "/v1/chat/completions", openAi("tiny-mlp", "What? ", broken), "does not decode");
        assertRefused(http, "/v1/messages", anthropic("tiny-mlp", "What? ", broken), "\"type\":\"error\"");
        ok(http.post("/v1/chat/completions", openAi("tiny-mlp", "What? ", SynthImages.png(20, 20, 15))));
        assertEquals(0, engine("tiny-mlp").snapshot().busySlots(), "no slot is left busy");
    }

    @Test
    void aModelWithoutAProjectorRefusesImagesInEachDoorsShape() throws Exception {
        byte[] image = SynthImages.png(20, 20, 16);
        assertRefused(
                http,
                "/v1/chat/completions",
                openAi("tiny-text", "What? ", image),
                "model tiny-text has no vision projector; give --mmproj");
        assertRefused(
                http,
                "/v1/messages",
                anthropic("tiny-text", "What? ", image),
                "has no vision projector; give --mmproj");
    }

    @Test
    void aProjectorOfAnotherWidthIsRefusedAtLoadAndTheModelListedWithTheReason() throws Exception {
        HttpResponse<String> refused =
                http.post("/v1/chat/completions", openAi("tiny-wide", "What? ", SynthImages.png(20, 20, 17)));
        assertTrue(refused.statusCode() >= 400, refused.body());
        JsonNode models = ok(http.get("/v1/models"));
        JsonNode wide = null;
        for (JsonNode m : models.get("data")) {
            if (m.get("id").asText().equals("tiny-wide")) {
                wide = m;
            }
        }
        assertTrue(wide != null, models.toString());
        assertTrue(wide.toString().contains("projector"), "the listing says why: " + wide);
        assertTrue(wide.toString().contains("mismatch"), "llama.cpp's reason, as it gave it: " + wide);
        JsonNode store = ok(http.get("/models"));
        assertTrue(store.toString().contains("mismatch"), store.toString());
        // the process lives, and so do the other models
        ok(http.post("/v1/chat/completions", openAi("tiny-mlp", "Still there? ", SynthImages.png(20, 20, 18))));
    }

    @Test
    void aProjectorGivenPerModelWinsAndNoMmprojDropsTheOnesFoundBesideModels() throws Exception {
        Path given = store.resolveSibling(store.getFileName() + "-given-mmproj.gguf");
        SynthProjector.tiny("mlp", 64).write(given);
        try (TestServer other = TestServer.start(
                "--models-dir",
                store.toString(),
                "--no-mmproj",
                "--mmproj",
                "tiny-wide=" + given,
                "-c",
                "512",
                "-t",
                "1")) {
            Http h = other.http();
            // tiny-wide's own (too wide) projector is not loaded: the one given is
            HttpResponse<String> wide =
                    h.post("/v1/chat/completions", openAi("tiny-wide", "What? ", SynthImages.png(20, 20, 19)));
            assertEquals(200, wide.statusCode(), wide.body());
            // tiny-mlp's projector, found beside it, is dropped by --no-mmproj
            assertRefused(
                    h,
                    "/v1/chat/completions",
                    openAi("tiny-mlp", "What? ", SynthImages.png(20, 20, 19)),
                    "model tiny-mlp has no vision projector; give --mmproj");
        }
        ForgeException unknown = assertThrows(
                ForgeException.class,
                () -> TestServer.start("--models-dir", store.toString(), "--mmproj", "nobody=" + given, "-t", "1"));
        assertTrue(unknown.getMessage().contains("no model answers to 'nobody'"), unknown.getMessage());
    }

    @Test
    void everyListingSaysWhichModelsReadImages() throws Exception {
        ok(http.post("/v1/chat/completions", openAi("tiny-gemma", "hi", null)));
        JsonNode models = ok(http.get("/v1/models"));
        List<String> vision = new ArrayList<>();
        for (JsonNode m : models.get("data")) {
            if (m.get("capabilities").toString().contains("\"vision\"")) {
                vision.add(m.get("id").asText());
            }
        }
        assertTrue(vision.containsAll(List.of("tiny-gemma", "tiny-mlp")), models.toString());
        assertTrue(!vision.contains("tiny-text"), models.toString());
        JsonNode props = ok(http.get("/props?model=tiny-gemma"));
        assertTrue(props.get("modalities").get("vision").asBoolean(), props.toString());
        assertTrue(!props.get("modalities").get("audio").asBoolean(), props.toString());
        assertTrue(!ok(http.get("/props?model=tiny-text"))
                .get("modalities")
                .get("vision")
                .asBoolean());
        JsonNode show = ok(http.post("/api/show", "{\"model\": \"tiny-gemma\"}"));
        assertTrue(show.get("capabilities").toString().contains("\"vision\""), show.toString());
        JsonNode store = ok(http.get("/models"));
        for (JsonNode m : store.get("data")) {
            String id = m.get("id").asText();
            boolean image =
                    m.get("architecture").get("input_modalities").toString().contains("\"image\"");
            if (id.equals("tiny-gemma") || id.equals("tiny-text")) {
                assertEquals(id.equals("tiny-gemma"), image, m.toString());
            }
            if (id.equals("tiny-gemma")) {
                // the projector's memory is counted with the model's
                assertEquals(
                        Files.size(gemma) + Files.size(gemmaProjector),
                        m.get("size").asLong(),
                        m.toString());
                assertEquals(gemmaProjector.toString(), m.get("mmproj").asText(), m.toString());
            }
        }
    }
}
