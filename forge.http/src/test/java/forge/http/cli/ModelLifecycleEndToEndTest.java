package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.assertParam;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelLoader;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loading and unloading observed through {@code GET /models}: least recently used first under
 * {@code --models-max}, idle models after {@code --models-ttl}, a request's {@code keep_alive}
 * (0 and negative), a model in use kept until its user is done, and a failed load remembered
 * until the file changes.
 */
class ModelLifecycleEndToEndTest {

    @TempDir
    static Path home;

    @AutoClose
    static TestServer server;

    static Http http;
    static Path tiny;

    @BeforeAll
    static void start() throws Exception {
        tiny = UserModels.tiny("lifecycle-tiny");
        for (String name : new String[] {"a", "b", "c", "d", "e", "f"}) {
            UserModels.folder(home, name + ".gguf", tiny);
        }
        server = TestServer.serve(UserModels.environment(home), "-c 256 -np 1 -t 2 --models-max 2 --models-ttl 3s");
        http = server.http();
    }

    private static void complete(String model, String extra) throws Exception {
        ok(http.post("/v1/completions", """
                {"model": "%s", "max_tokens": 1, "prompt": "hi"%s}
                """.formatted(model, extra)));
    }

    private static Map<String, String> states() throws Exception {
        Map<String, String> states = new LinkedHashMap<>();
        for (JsonNode m : ok(http.get("/models")).get("data")) {
            states.put(m.get("id").asText(), m.get("status").get("value").asText());
        }
        return states;
    }

    @Test
    void theLeastRecentlyUsedUnloadsFirstAndIdleModelsAfterTheirTtl() throws Exception {
        // Kept forever first, so that no TTL runs out while the next model loads (seconds on a busy
        // machine): the least recently used goes because of --models-max alone.
        String forever = ", \"keep_alive\": \"-1m\"";
        complete("a", forever);
        complete("b", forever);
        assertEquals("loaded", states().get("a"));
        assertEquals("loaded", states().get("b"));
        complete("c", forever); // a third model: --models-max 2 unloads a, the least recently used
        Map<String, String> s = states();
        assertEquals("unloaded", s.get("a"), s.toString());
        assertEquals("loaded", s.get("b"), s.toString());
        assertEquals("loaded", s.get("c"), s.toString());
        // Then each used once more with the default keep-alive: each unloads by the TTL, from its own last use.
        complete("b", "");
        long bUsed = System.nanoTime();
        complete("c", "");
        long cUsed = System.nanoTime();
        UserModelsEndToEndTest.http = http;
        UserModelsEndToEndTest.awaitState("b", "unloaded");
        assertTrue(System.nanoTime() - bUsed > 2_000_000_000L, "b unloaded by the 3 s TTL, not earlier");
        UserModelsEndToEndTest.awaitState("c", "unloaded");
        assertTrue(System.nanoTime() - cUsed > 2_000_000_000L, "c unloaded by the 3 s TTL, not earlier");
    }

    @Test
    void keepAliveZeroUnloadsAfterTheRequestAndNegativeKeeps() throws Exception {
        UserModelsEndToEndTest.http = http;
        complete("d", ", \"keep_alive\": 0");
        UserModelsEndToEndTest.awaitState("d", "unloaded");
        complete("e", ", \"keep_alive\": \"-1m\"");
        Thread.sleep(4_000); // past the 3 s TTL
        assertEquals("loaded", states().get("e"));
        JsonNode e = UserModelsEndToEndTest.model("e");
        assertEquals("forever", e.get("keep_alive").asText());
        HttpResponse<String> bad = http.post("/v1/completions", """
                {"model": "e", "max_tokens": 1, "prompt": "hi", "keep_alive": "soon"}
                """);
        assertParam(bad, "keep_alive");
        ok(http.post("/models/unload", "{\"model\": \"e\"}"));
        UserModelsEndToEndTest.awaitState("e", "unloaded");
    }

    @Test
    void aModelInUseNeverUnloads() throws Exception {
        UserModelsEndToEndTest.http = http;
        ModelCatalog catalog = server.running().catalog();
        ok(http.post("/models/load", "{\"model\": \"f\"}"));
        try (ModelLoader.Lease lease = catalog.lease(catalog.find("f").orElseThrow())) {
            ok(http.post("/models/unload", "{\"model\": \"f\"}"));
            Thread.sleep(500); // proves that it does not unload: a short, bounded look
            assertEquals("loaded", states().get("f"), "a request holds it");
            assertEquals(
                    1,
                    UserModelsEndToEndTest.model("f")
                            .get("status")
                            .get("in_use")
                            .asInt());
            lease.model().engine().config(); // still usable
        }
        UserModelsEndToEndTest.awaitState("f", "unloaded");
        HttpResponse<String> r = http.post("/models/unload", "{\"model\": \"f\"}");
        assertEquals(400, r.statusCode(), "not loaded: " + r.body());
        assertEquals(404, http.post("/models/load", "{\"model\": \"nobody\"}").statusCode());
    }

    @Test
    void aFailedLoadIsRememberedUntilTheFileChanges() throws Exception {
        UserModelsEndToEndTest.http = http;
        // d was whole when the server registered it; now its weights are cut off halfway
        Path d = home.resolve(".forge/models/d.gguf");
        byte[] good = Files.readAllBytes(d);
        http.post("/models/unload", "{\"model\": \"d\"}"); // 400 when it is not loaded: either way it is not now
        UserModelsEndToEndTest.awaitState("d", "unloaded");
        byte[] broken = java.util.Arrays.copyOf(good, good.length / 2);
        Files.write(d, broken);
        int before = UserModelsEndToEndTest.model("d").get("loads").asInt();
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r =
                    http.post("/v1/completions", "{\"model\": \"d\", \"max_tokens\": 1, \"prompt\": \"hi\"}");
            assertEquals(400, r.statusCode(), r.body());
            assertTrue(
                    JSON.readTree(r.body()).get("error").get("message").asText().startsWith("the model failed to load"),
                    r.body());
        }
        assertEquals(
                before + 1, UserModelsEndToEndTest.model("d").get("loads").asInt(), "loaded once, not per request");
        assertEquals("failed", states().get("d"));
        Path tmp = d.resolveSibling("d.tmp");
        Files.write(tmp, good);
        Files.move(tmp, d, StandardCopyOption.REPLACE_EXISTING);
        complete("d", ", \"keep_alive\": 0");
        assertEquals(before + 2, UserModelsEndToEndTest.model("d").get("loads").asInt());
    }
}
