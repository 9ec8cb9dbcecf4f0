package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.http.hub.FakeHub;
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
