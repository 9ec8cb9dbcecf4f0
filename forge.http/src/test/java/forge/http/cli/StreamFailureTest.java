package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.runtime.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A generation that fails after the 200 and the first chunks went out: the client gets one final
 * OpenAI-shaped error event and {@code [DONE]}, never a stream cut short. The failure is real: the
 * model's engine shuts down under the running stream (what unloading a model or stopping the
 * server does), and the engine fails every sequence it holds.
 */
class StreamFailureTest {

    @AutoClose
    static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.start("-m", TestServer.model("tiny", SynthSpec.tiny("qwen")).toString(), "-c", "4096", "-np", "1", "-t", "2");
    }

    @Test
    void aFailureMidStreamIsOneErrorEventThenDone() throws Exception {
        // No max_tokens and no end token: it would run until the slot's 4096 tokens are spent.
        HttpResponse<Stream<String>> response = server.http().stream("/v1/chat/completions", """
                {"model": "tiny", "stream": true, "ignore_eos": true, "messages": [{"role": "user", "content": "go on"}]}""");
        assertEquals(200, response.statusCode());
        List<String> data = new ArrayList<>();
        Iterator<String> lines = response.body().iterator();
        int contentChunks = 0;
        while (contentChunks < 3 && lines.hasNext()) {
            String line = lines.next();
            if (line.startsWith("data: ")) {
                data.add(line.substring(6));
                if (JSON.readTree(line.substring(6)).path("choices").path(0).path("delta").has("content")) {
                    contentChunks++;
                }
            }
        }
        assertEquals(3, contentChunks, "the stream was running: " + data);

        server.running().catalog().entries().getFirst().served().orElseThrow().engine().close();

        while (lines.hasNext()) {
            String line = lines.next();
            if (line.startsWith("data: ")) {
                data.add(line.substring(6));
            }
        }
        assertEquals("[DONE]", data.getLast(), "the stream ends properly");
        JsonNode error = JSON.readTree(data.get(data.size() - 2)).get("error");
        assertTrue(error != null && error.isObject(), "the event before [DONE] is the error: " + data.get(data.size() - 2));
        assertTrue(error.get("message").asText().contains("shut down"), error.toString());
        assertEquals("server_error", error.get("type").asText());
        assertEquals("unavailable", error.get("code").asText());
        assertTrue(error.has("param"));
        for (String d : data.subList(0, data.size() - 2)) {
            JsonNode chunk = JSON.readTree(d);
            assertFalse(chunk.has("error"), "one error event only");
            assertTrue(chunk.path("choices").path(0).path("finish_reason").isNull(), "no finish before the error: " + d);
        }
    }
}
