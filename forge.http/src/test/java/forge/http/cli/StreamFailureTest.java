package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
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
        server = TestServer.serve(TestServer.model("tiny", SynthSpec.tiny("qwen")), "-c 4096 -np 1 -t 2");
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
                if (JSON.readTree(line.substring(6))
                        .path("choices")
                        .path(0)
                        .path("delta")
                        .has("content")) {
                    contentChunks++;
                }
            }
        }
        assertEquals(3, contentChunks, "the stream was running: " + data);

        closeTheEngine(server);

        while (lines.hasNext()) {
            String line = lines.next();
            if (line.startsWith("data: ")) {
                data.add(line.substring(6));
            }
        }
        assertEquals("[DONE]", data.getLast(), "the stream ends properly");
        JsonNode error = JSON.readTree(data.get(data.size() - 2)).get("error");
        assertTrue(
                error != null && error.isObject(),
                "the event before [DONE] is the error: " + data.get(data.size() - 2));
        assertTrue(error.get("message").asText().contains("shut down"), error.toString());
        assertEquals("server_error", error.get("type").asText());
        assertEquals("unavailable", error.get("code").asText());
        assertTrue(error.has("param"));
        for (String d : data.subList(0, data.size() - 2)) {
            JsonNode chunk = JSON.readTree(d);
            assertFalse(chunk.has("error"), "one error event only");
            assertTrue(
                    chunk.path("choices").path(0).path("finish_reason").isNull(), "no finish before the error: " + d);
        }
    }

    /**
     * Starts a stream on a server of its own, shuts the engine down once the stream's first event
     * arrived (the generation is then still running: the model is slow enough, and its limit is the
     * slot), and returns the stream's events, the first included.
     */
    private static List<Http.Event> failedStream(String path, String body) throws Exception {
        // Wider than tiny, so that a generation is still running when the engine is shut down.
        var model = TestServer.model("tiny-qwen-wide", SynthSpec.tiny("qwen").withShape(256, 4, 8, 2, 768));
        try (TestServer own = TestServer.serve(model, "-c 2048 -np 1 -t 2")) {
            HttpResponse<Stream<String>> response = own.http().stream(path, body);
            assertEquals(200, response.statusCode());
            Iterator<String> lines = response.body().iterator();
            StringBuilder raw = new StringBuilder();
            String line;
            do {
                line = lines.next();
                raw.append(line).append('\n');
            } while (!line.isEmpty());
            closeTheEngine(own);
            while (lines.hasNext()) {
                raw.append(lines.next()).append('\n');
            }
            return Http.namedEvents(raw.toString());
        }
    }

    @Test
    void anthropicsStreamEndsWithAnErrorEvent() throws Exception {
        List<Http.Event> events = failedStream("/v1/messages", """
                {"model": "tiny-qwen-wide", "max_tokens": 4000, "stream": true, "messages": [{"role": "user", "content": "go on"}]}""");
        assertEquals("message_start", events.getFirst().name());
        Http.Event last = events.getLast();
        assertEquals("error", last.name(), events.toString());
        assertEquals(
                "overloaded_error",
                last.data().get("error").get("type").asText(),
                "the engine is unavailable: a 503's type");
        assertTrue(last.data().get("error").get("message").asText().contains("shut down"), last.toString());
        assertTrue(events.stream().noneMatch(e -> e.name().equals("message_stop")), "no normal end: " + events);
    }

    @Test
    void responsesStreamEndsWithResponseFailed() throws Exception {
        List<Http.Event> events = failedStream("/v1/responses", """
                {"model": "tiny-qwen-wide", "input": "go on", "stream": true}""");
        assertEquals("response.created", events.getFirst().name());
        Http.Event last = events.getLast();
        assertEquals("response.failed", last.name(), events.toString());
        JsonNode response = last.data().get("response");
        assertEquals("failed", response.get("status").asText());
        assertEquals("unavailable", response.get("error").get("code").asText());
        assertTrue(response.get("error").get("message").asText().contains("shut down"), response.toString());
        for (int i = 0; i < events.size(); i++) {
            assertEquals(i, events.get(i).data().get("sequence_number").asInt());
        }
    }

    /** Shuts down the engine of the server's one model, as a failing backend would stop: its running generations fail. */
    private static void closeTheEngine(TestServer server) {
        server.running()
                .catalog()
                .entries()
                .getFirst()
                .served()
                .orElseThrow()
                .engine()
                .close();
    }
}
