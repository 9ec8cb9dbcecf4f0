package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.http.hub.FakeHub;
import forge.lib.gguf.synth.SynthProjector;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /models/pull} against a loopback hub: progress streams as Ollama's
 * {@code /api/pull} lines, the pulled model is registered and served; a pull whose bytes do
 * not hash to the hub's id ends with an error line and leaves no model.
 */
class PullEndToEndTest {

    @TempDir
    Path home;

    @Test
    void aPulledModelStreamsProgressThenServes() throws Exception {
        byte[] gguf = Files.readAllBytes(UserModels.tiny("pull-tiny"));
        try (FakeHub hub = new FakeHub()
                        .file("someone/Tiny-GGUF", "tiny-Q8_0.gguf", gguf)
                        .file("someone/Bad-GGUF", "bad-Q8_0.gguf", gguf.clone());
                TestServer server = TestServer.serve(
                        Map.of("HOME", home.toString()), "-c 256 -np 1 -t 2", "--hf-endpoint", hub.endpoint())) {
            Http http = server.http();
            HttpResponse<String> r = http.post("/models/pull", "{\"model\": \"someone/Tiny-GGUF:Q8_0\"}");
            assertEquals(200, r.statusCode(), r.body());
            assertEquals(
                    "application/x-ndjson",
                    r.headers().firstValue("content-type").orElse(""));
            List<JsonNode> lines = new ArrayList<>();
            for (String line : r.body().split("\n")) {
                lines.add(JSON.readTree(line));
            }
            assertEquals("pulling manifest", lines.getFirst().get("status").asText());
            JsonNode file = lines.stream()
                    .filter(l -> l.has("digest"))
                    .reduce((a, b) -> b)
                    .orElseThrow();
            assertEquals("sha256:" + FakeHub.sha256(gguf), file.get("digest").asText());
            assertEquals(gguf.length, file.get("total").asLong());
            assertEquals(gguf.length, file.get("completed").asLong());
            assertEquals("success", lines.getLast().get("status").asText(), r.body());
            assertEquals(
                    "someone/Tiny-GGUF/tiny-Q8_0", lines.getLast().get("model").asText());
            ok(http.post("/v1/chat/completions", """
                    {"model": "someone/Tiny-GGUF/tiny-Q8_0", "max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}
                    """));

            // the repository's projector comes with the model (llama-server's --mmproj-auto), never as a model
            Path vl = UserModels.tiny("pull-vl");
            Path projector = home.resolve("mmproj-vl-F16.gguf");
            SynthProjector.tiny("mlp", SynthSpec.tiny("qwen").embedding()).write(projector);
            hub.file("someone/Vl-GGUF", "vl-Q8_0.gguf", Files.readAllBytes(vl))
                    .file("someone/Vl-GGUF", "mmproj-vl-F16.gguf", Files.readAllBytes(projector));
            assertEquals(
                    400,
                    http.post("/models/pull", "{\"model\": \"someone/Vl-GGUF:Q8_0\", \"mmproj\": \"yes\"}")
                            .statusCode());
            Path snapshot = home.resolve(".cache/huggingface/hub/models--someone--Vl-GGUF/snapshots/" + FakeHub.COMMIT);
            HttpResponse<String> bare = http.post(
                    "/models/pull", "{\"model\": \"someone/Vl-GGUF:Q8_0\", \"mmproj\": false, \"stream\": false}");
            assertEquals(200, bare.statusCode(), bare.body());
            assertTrue(Files.exists(snapshot.resolve("vl-Q8_0.gguf")));
            assertTrue(!Files.exists(snapshot.resolve("mmproj-vl-F16.gguf")), "asked not to, no projector");
            HttpResponse<String> withIt =
                    http.post("/models/pull", "{\"model\": \"someone/Vl-GGUF:Q8_0\", \"stream\": false}");
            assertEquals(200, withIt.statusCode(), withIt.body());
            assertTrue(Files.exists(snapshot.resolve("mmproj-vl-F16.gguf")));
            String models = ok(http.get("/v1/models")).toString();
            assertTrue(models.contains("someone/Vl-GGUF/vl-Q8_0"), models);
            assertTrue(!models.contains("mmproj"), "a projector is no model: " + models);

            hub.corrupt = true;
            HttpResponse<String> bad = http.post("/models/pull", "{\"model\": \"someone/Bad-GGUF:Q8_0\"}");
            String[] badLines = bad.body().split("\n");
            assertTrue(
                    JSON.readTree(badLines[badLines.length - 1])
                            .get("error")
                            .asText()
                            .contains("sha256 mismatch"),
                    bad.body());
            assertEquals(404, http.post("/v1/chat/completions", """
                    {"model": "someone/Bad-GGUF/bad-Q8_0", "max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}
                    """).statusCode());
        }
    }
}
