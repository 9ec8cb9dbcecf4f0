package forge.http.server;

import static forge.http.server.VisionEndToEndTest.ok;
import static forge.http.server.VisionEndToEndTest.openAi;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.http.cli.Http;
import forge.http.cli.TestServer;
import forge.lib.gguf.synth.SynthImages;
import forge.lib.gguf.synth.SynthProjector;
import forge.lib.gguf.synth.SynthSpec;
import forge.runtime.engine.Engine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Images placed by M-RoPE end to end: a {@code qwen2vl} text model with a {@code qwen2vl_merger}
 * projector found beside it, whose images take a KV cell per embedding but fewer positions. Every
 * request has text after its image. What a slot reuses after an image (a returning turn, a prompt
 * that leaves the conversation inside the text after the image) must continue at the image's
 * positions, not its cells: each such answer is compared with the same request served cold by a
 * fresh server, which computes everything. {@code VisionPeerTest} compares both with llama-server.
 */
class MRopeVisionEndToEndTest {

    @AutoClose
    static TestServer server;

    static Http http;

    static Path store;

    static final String MODEL = "tiny-qwen2vl";

    /** A 64x48 image: 8x6 patches, merged 2x2 into 4x3, so 12 embeddings at 4 positions. */
    static final int EMBEDDINGS = 12;

    @BeforeAll
    static void start() throws Exception {
        store = Files.createTempDirectory("forge-mrope-store-");
        Path folder = Files.createDirectories(store.resolve("qwen2vl"));
        Files.copy(
                TestServer.model(MODEL, SynthSpec.tiny("qwen").withArchitecture("qwen2vl")),
                folder.resolve(MODEL + ".gguf"));
        SynthProjector.tiny("qwen2vl_merger", 64).write(folder.resolve("mmproj-" + MODEL + ".gguf"));
        server = serve();
        http = server.http();
    }

    private static TestServer serve() {
        return serve("-np", "2");
    }

    private static TestServer serve(String... slots) {
        List<String> args = new ArrayList<>(List.of("--models-dir", store.toString(), "-c", "1024", "-t", "1"));
        args.addAll(List.of(slots));
        return TestServer.start(args.toArray(String[]::new));
    }

    static Engine engine() {
        return engine(server);
    }

    static Engine engine(TestServer server) {
        return VisionEndToEndTest.engine(server, MODEL);
    }

    private static String content(JsonNode answer) {
        return answer.get("choices").get(0).get("message").get("content").asText();
    }

    private static int cached(JsonNode answer) {
        return answer.get("usage")
                .get("prompt_tokens_details")
                .get("cached_tokens")
                .asInt();
    }

    /** {@code first} with the assistant's {@code said} and a user's {@code then} after it. */
    private static String nextTurn(String first, String said, String then) throws Exception {
        String next = first.replace(
                "}]}]}",
                "}]}, {\"role\": \"assistant\", \"content\": " + Json.MAPPER.writeValueAsString(said)
                        + "}, {\"role\": \"user\", \"content\": \"" + then + "\"}]}");
        assertTrue(next.contains(then), next);
        return next.replace("\"max_tokens\": 4", "\"max_tokens\": 8");
    }

    @Test
    void anImageCountsItsEmbeddingsAndTheTextAfterItIsAnswered() throws Exception {
        byte[] image = SynthImages.png(64, 48, 31);
        JsonNode with = ok(http.post("/v1/chat/completions", openAi(MODEL, "What is this? ", image)));
        JsonNode without = ok(http.post("/v1/chat/completions", openAi(MODEL, "What is this? ", null)));
        int added = with.get("usage").get("prompt_tokens").asInt()
                - without.get("usage").get("prompt_tokens").asInt();
        // the image's 12 embeddings (one cell each, though 4 positions), and <|vision_start|> and
        // <|vision_end|>, which this tiny vocabulary spells as plain text
        assertTrue(added >= EMBEDDINGS && added <= EMBEDDINGS + 40, "12 embeddings and the markers: " + added);
        assertTrue(with.get("usage").get("completion_tokens").asInt() > 0, with.toString());
    }

    @Test
    void aReturningTurnReusesTheImageAndAnswersAsAColdServerDoes() throws Exception {
        byte[] image = SynthImages.png(64, 48, 32);
        String first = openAi(MODEL, "Look closely. ", image);
        JsonNode answer = ok(http.post("/v1/chat/completions", first));
        long encodes = engine().snapshot().mediaEncodes();
        String next = nextTurn(first, content(answer), "And the colours?");
        JsonNode warm = ok(http.post("/v1/chat/completions", next));
        assertEquals(encodes, engine().snapshot().mediaEncodes(), "the image came from the slot's cells");
        assertTrue(cached(warm) > EMBEDDINGS, "the image's cells were reused: " + warm);
        try (TestServer fresh = serve()) {
            JsonNode cold = ok(fresh.http().post("/v1/chat/completions", next));
            assertEquals(0, cached(cold), cold.toString());
            assertEquals(
                    cold.get("usage").get("prompt_tokens").asInt(),
                    warm.get("usage").get("prompt_tokens").asInt());
            assertEquals(
                    content(cold),
                    content(warm),
                    "the text after the reused image sits at the positions a cold prefill gives it");
        }
    }

    @Test
    void aPromptThatLeavesTheConversationInsideTheTextAfterTheImageCutsThere() throws Exception {
        byte[] image = SynthImages.png(64, 48, 33);
        String red = "{\"model\": \"" + MODEL + "\", \"max_tokens\": 8, \"temperature\": 0, \"messages\": [{\"role\":"
                + " \"user\", \"content\": [{\"type\": \"image_url\", \"image_url\": {\"url\": \""
                + VisionEndToEndTest.dataUri(image) + "\"}}, {\"type\": \"text\", \"text\": \"%s\"}]}]}";
        ok(http.post("/v1/chat/completions", red.formatted("Look closely at the red one on the left.")));
        long encodes = engine().snapshot().mediaEncodes();
        String blue = red.formatted("Look closely at the blue one on the right.");
        JsonNode warm = ok(http.post("/v1/chat/completions", blue));
        assertEquals(encodes, engine().snapshot().mediaEncodes(), "the image came from the slot's cells");
        int total = warm.get("usage").get("prompt_tokens").asInt();
        assertTrue(
                cached(warm) > EMBEDDINGS && cached(warm) < total - 4,
                "kept the image and some text after it, not all of it: " + warm);
        try (TestServer fresh = serve()) {
            JsonNode cold = ok(fresh.http().post("/v1/chat/completions", blue));
            assertEquals(content(cold), content(warm), "the cut fell at the cell's position, not its index");
        }
    }

    @Test
    void anImageConversationSavedToTheHostCacheIsRestoredAtItsPositions() throws Exception {
        byte[] image = SynthImages.png(64, 48, 34);
        try (TestServer one = serve("-np", "1")) {
            String first = openAi(MODEL, "Remember this picture well, you will be asked about it. ", image);
            JsonNode answer = ok(one.http().post("/v1/chat/completions", first));
            // another conversation takes the only slot: the image's is saved to the host cache first
            ok(one.http().post("/v1/chat/completions", openAi(MODEL, "Something else entirely. ".repeat(4), null)));
            long encodes = engine(one).snapshot().mediaEncodes();
            long restores = engine(one).snapshot().cacheRestores();
            String next = nextTurn(first, content(answer), "What was in it?");
            JsonNode warm = ok(one.http().post("/v1/chat/completions", next));
            assertEquals(restores + 1, engine(one).snapshot().cacheRestores(), "restored from the host cache");
            assertEquals(encodes, engine(one).snapshot().mediaEncodes(), "the image came back with the state");
            assertTrue(cached(warm) > EMBEDDINGS, warm.toString());
            try (TestServer fresh = serve("-np", "1")) {
                JsonNode cold = ok(fresh.http().post("/v1/chat/completions", next));
                assertEquals(0, cached(cold), cold.toString());
                assertEquals(
                        content(cold),
                        content(warm),
                        "the restored cells were trimmed at the position of the first one not kept");
            }
        }
    }
}
