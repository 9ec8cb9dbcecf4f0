package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthProjector;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code forge serve} with no {@code -m} in a {@code HOME} holding models in ~/.forge/models,
 * Ollama's store, LM Studio's folder and the Hugging Face cache: it lists every one under its
 * predictable id and serves each; a file that is not GGUF and a model whose template does not
 * parse are listed unavailable with the reason, refused with a 400 naming it, and the rest serve.
 */
class UserModelsEndToEndTest {

    @TempDir
    static Path home;

    @AutoClose
    static TestServer server;

    static Http http;

    static final List<String> SERVED = List.of(
            "folder-model", "split-model", "tinyllama:1b", "pub/repo-GGUF/model-Q8_0", "org/repo/tiny-q8", "coder");

    @BeforeAll
    static void start() throws Exception {
        Path tiny = UserModels.tiny("user-models-tiny");
        UserModels.folder(home, "folder-model.gguf", tiny);
        UserModels.folder(home, "split-model-00001-of-00001.gguf", tiny);
        UserModels.folder(home, "half-00001-of-00002.gguf", tiny); // its second part is missing
        // a projector is not a model: it is loaded with the models of its folder (as wide as they are)
        SynthProjector.tiny("mlp", 64).write(home.resolve(".forge/models/mmproj-folder-model-f16.gguf"));
        Files.writeString(home.resolve(".forge/models/broken.gguf"), "this is not a GGUF file");
        UserModels.folder(home, "bad-template.gguf", UserModels.badTemplate("bad-template"));
        UserModels.ollama(home, "tinyllama", "1b", tiny);
        UserModels.lmStudio(home, "pub", "repo-GGUF", "model-Q8_0.gguf", tiny);
        UserModels.hfCache(home, "org", "repo", "tiny-q8.gguf", tiny);
        Files.writeString(home.resolve(".forge/models.json"), """
                {"aliases": {"coder": "tinyllama:1b"}}
                """);
        server = TestServer.start(UserModels.environment(home), "-c", "256", "-np", "1", "-t", "2");
        http = server.http();
    }

    private static Map<String, JsonNode> v1Models() throws Exception {
        Map<String, JsonNode> byId = new LinkedHashMap<>();
        for (JsonNode m : ok(http.get("/v1/models")).get("data")) {
            byId.put(m.get("id").asText(), m);
        }
        return byId;
    }

    @Test
    void everySourceIsListedUnderItsPredictableId() throws Exception {
        Map<String, JsonNode> models = v1Models();
        for (String id : SERVED) {
            assertTrue(models.containsKey(id), id + " in " + models.keySet());
            assertTrue(models.get(id).get("available").asBoolean(), id);
        }
        assertEquals("folder", models.get("folder-model").get("source").asText());
        assertEquals("ollama", models.get("tinyllama:1b").get("source").asText());
        assertEquals(
                "lmstudio", models.get("pub/repo-GGUF/model-Q8_0").get("source").asText());
        assertEquals("hf", models.get("org/repo/tiny-q8").get("source").asText());
        // read in place: the HF model's path is the snapshot's symlink, resolved into blobs/
        assertTrue(models.get("org/repo/tiny-q8").get("path").asText().contains("models--org--repo"));
        assertTrue(models.get("tinyllama:1b")
                .get("path")
                .asText()
                .startsWith(home.resolve(".ollama/models/blobs").toString()));
        assertEquals("tinyllama:1b", models.get("coder").get("alias_of").asText());
        assertFalse(
                models.keySet().stream().anyMatch(id -> id.contains("mmproj")),
                models.keySet().toString());
        assertFalse(models.containsKey("split-model-00001-of-00001"));
        // found beside them, the folder's projector makes its models read images
        assertTrue(
                models.get("folder-model").get("capabilities").toString().contains("\"vision\""),
                models.get("folder-model").toString());
    }

    @Test
    void brokenFilesAreListedUnavailableWithTheReason() throws Exception {
        Map<String, JsonNode> models = v1Models();
        JsonNode broken = models.get("broken");
        assertFalse(broken.get("available").asBoolean());
        assertTrue(broken.get("reason").asText().startsWith("not a readable GGUF file"), broken.toString());
        JsonNode template = models.get("bad-template");
        assertFalse(template.get("available").asBoolean());
        assertTrue(template.get("reason").asText().contains("chat template does not parse"), template.toString());
        JsonNode half = models.get("half");
        assertFalse(half.get("available").asBoolean());
        assertEquals("split model: part 2 of 2 missing", half.get("reason").asText());
    }

    @Test
    void unavailableModelsAreRefusedNamingTheReasonAndTheOthersServe() throws Exception {
        for (String id : new String[] {"broken", "bad-template", "half"}) {
            HttpResponse<String> r = http.post("/v1/chat/completions", """
                    {"model": "%s", "max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}
                    """.formatted(id));
            assertEquals(400, r.statusCode(), r.body());
            JsonNode error = JSON.readTree(r.body()).get("error");
            assertEquals("model_unavailable", error.get("code").asText());
            assertEquals(
                    v1Models().get(id).get("reason").asText(),
                    error.get("message").asText());
        }
        for (String id : SERVED) {
            JsonNode body = ok(http.post("/v1/chat/completions", """
                    {"model": "%s", "max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}
                    """.formatted(id)));
            assertEquals("chat.completion", body.get("object").asText(), id);
        }
        Map<String, String> states = new LinkedHashMap<>();
        for (JsonNode m : ok(http.get("/models")).get("data")) {
            states.put(m.get("id").asText(), m.get("status").get("value").asText());
        }
        assertEquals("loaded", states.get("org/repo/tiny-q8"), states.toString());
        assertEquals("loaded", states.get("tinyllama:1b"), states.toString());
        assertEquals("unavailable", states.get("broken"), states.toString());
    }

    @Test
    void anIdNeverResolvesToAPath() throws Exception {
        for (String id : new String[] {
            "../../../etc/passwd",
            home.resolve(".forge/models/folder-model.gguf").toString(),
            "blobs/sha256-" + "0".repeat(64),
            "org/repo/../../etc/passwd"
        }) {
            HttpResponse<String> r = http.post(
                    "/v1/chat/completions",
                    JSON.createObjectNode()
                            .put("model", id)
                            .put("max_tokens", 1)
                            .set("messages", JSON.readTree("[{\"role\":\"user\",\"content\":\"hi\"}]"))
                            .toString());
            assertEquals(404, r.statusCode(), id + ": " + r.body());
        }
    }

    @Test
    void concurrentRequestsForAnUnloadedModelWaitForOneLoad() throws Exception {
        ok(http.post("/models/load", "{\"model\": \"folder-model\"}"));
        ok(http.post("/models/unload", "{\"model\": \"folder-model\"}"));
        awaitState("folder-model", "unloaded");
        int loadsBefore = model("folder-model").get("loads").asInt();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                calls.add(pool.submit(() -> http.post("/v1/completions", """
                        {"model": "folder-model", "max_tokens": 1, "prompt": "hi"}
                        """)));
            }
            for (var c : calls) {
                assertEquals(200, c.get().statusCode(), c.get().body());
            }
        }
        assertEquals(loadsBefore + 1, model("folder-model").get("loads").asInt());
    }

    static JsonNode model(String id) throws Exception {
        for (JsonNode m : ok(http.get("/models")).get("data")) {
            if (m.get("id").asText().equals(id)) {
                return m;
            }
        }
        throw new AssertionError("no " + id);
    }

    static void awaitState(String id, String state) throws Exception {
        // a deadline for a hang, not a measure: a busy machine can take seconds over a load or an unload
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!model(id).get("status").get("value").asText().equals(state)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(id + " is not " + state + ": " + model(id));
            }
            Thread.sleep(50);
        }
    }

    /**
     * Ollama's API lists Ollama's store under the names {@code ollama list} shows, with the blob's
     * digest, and answers to them; an alias answers with Ollama's {@code :latest} tag too.
     */
    @Test
    void ollamasApiAnswersToTheStoresNames() throws Exception {
        Map<String, JsonNode> tags = new LinkedHashMap<>();
        for (JsonNode m : ok(http.get("/api/tags")).get("models")) {
            tags.put(m.get("name").asText(), m);
        }
        assertTrue(tags.keySet().containsAll(SERVED), tags.keySet().toString());
        assertEquals(
                UserModels.sha256(UserModels.tiny("user-models-tiny")),
                tags.get("tinyllama:1b").get("digest").asText());
        JsonNode chat = ok(http.post("/api/chat", """
                {"model": "tinyllama:1b", "stream": false, "options": {"num_predict": 2},
                 "messages": [{"role": "user", "content": "hi"}]}"""));
        assertEquals("tinyllama:1b", chat.get("model").asText());
        assertTrue(chat.get("done").asBoolean(), chat.toString());
        // coder is an alias (no tag): Ollama's clients ask for it as coder:latest.
        JsonNode show = ok(http.post("/api/show", "{\"model\": \"coder:latest\"}"));
        assertEquals("gguf", show.get("details").get("format").asText(), show.toString());
    }
}
