package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v1/messages} and {@code /v1/messages/count_tokens} against the real server:
 * Anthropic's message shape, its stream's events in their order byte by byte, forced tool calls
 * through the same grammar as chat's, stop sequences, usage from the prefix cache, the context
 * policy, and errors in Anthropic's shape. The model is random-weight noise: structure, not wording.
 */
class AnthropicMessagesEndToEndTest {

    @AutoClose
    static final TestServer server =
            TestServer.serve(TestServer.model("tiny-qwen", SynthSpec.tiny("qwen")), "--alias demo -c 2048 -np 2 -t 2");

    static final Http http = server.http();

    /** A schema whose JSON is bounded (an enum): a forced call from noise finishes within a few tokens. */
    static final String UNIT_TOOL = """
            {"name": "set_unit", "description": "Choose the unit", "input_schema": {"type": "object",
             "properties": {"unit": {"enum": ["celsius", "fahrenheit"]}}, "required": ["unit"], "additionalProperties": false}}""";

    static HttpResponse<String> messages(String body) throws Exception {
        return http.send(http.postRequest("/v1/messages", body)
                .header("anthropic-version", "2023-06-01")
                .header("anthropic-beta", "interleaved-thinking-2025-05-14"));
    }

    @Test
    void aWholeMessageHasAnthropicsShapeAndUsage() throws Exception {
        String body = """
                {"model": "demo", "max_tokens": 6, "temperature": 0, "system": [{"type": "text", "text": "Be brief."}],
                 "messages": [{"role": "user", "content": "Hello"}]}""";
        HttpResponse<String> r = messages(body);
        JsonNode m = ok(r);
        assertTrue(m.get("id").asText().startsWith("msg_"), r.body());
        assertEquals("message", m.get("type").asText());
        assertEquals("assistant", m.get("role").asText());
        assertEquals("tiny-qwen", m.get("model").asText());
        JsonNode usage = m.get("usage");
        int output = usage.get("output_tokens").asInt();
        assertTrue(output >= 1 && output <= 6, r.body());
        String reason = m.get("stop_reason").asText();
        assertEquals(output == 6 ? "max_tokens" : "end_turn", reason, r.body());
        assertTrue(m.get("stop_sequence").isNull());
        for (JsonNode block : m.get("content")) {
            assertEquals("text", block.get("type").asText(), r.body());
        }
        assertEquals("6", r.headers().firstValue("X-Forge-Max-Tokens").orElse(null));
        // input_tokens + cache_read_input_tokens is the whole prompt, which count_tokens counts.
        int prompt = usage.get("input_tokens").asInt()
                + usage.get("cache_read_input_tokens").asInt();
        assertEquals(
                prompt,
                ok(http.post("/v1/messages/count_tokens", body))
                        .get("input_tokens")
                        .asInt());
        // The same prompt again is read from the slot's cache.
        JsonNode again = ok(messages(body)).get("usage");
        assertTrue(again.get("cache_read_input_tokens").asInt() > 0, again.toString());
        assertEquals(
                prompt,
                again.get("input_tokens").asInt()
                        + again.get("cache_read_input_tokens").asInt());
    }

    @Test
    void aStreamIsAnthropicsEventsInTheirOrder() throws Exception {
        String body = """
                {"model": "demo", "max_tokens": 8, "temperature": 0, "stream": true,
                 "messages": [{"role": "user", "content": "Count to three"}]}""";
        HttpResponse<String> r = messages(body);
        assertTrue(
                r.body()
                        .startsWith(
                                "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_"),
                r.body());
        assertEquals("text/event-stream", r.headers().firstValue("content-type").orElse(""));
        List<Http.Event> events = Http.namedEvents(r);
        String names = events.stream().map(Http.Event::name).collect(Collectors.joining(" "));
        // One text block (or none when the model ends at once), a ping after the first block opens.
        assertTrue(
                names.matches(
                        "message_start( content_block_start ping( content_block_delta)+ content_block_stop)? message_delta message_stop"),
                names);
        JsonNode start = events.getFirst().data().get("message");
        assertEquals("assistant", start.get("role").asText());
        assertTrue(start.get("content").isEmpty() && start.get("stop_reason").isNull());
        StringBuilder text = new StringBuilder();
        for (Http.Event e : events) {
            if (e.name().equals("content_block_start")) {
                assertEquals(0, e.data().get("index").asInt());
                assertEquals(
                        "{\"type\":\"text\",\"text\":\"\"}",
                        e.data().get("content_block").toString());
            }
            if (e.name().equals("content_block_delta")) {
                assertEquals("text_delta", e.data().get("delta").get("type").asText());
                text.append(e.data().get("delta").get("text").asText());
            }
        }
        JsonNode delta = events.get(events.size() - 2).data();
        int output = delta.get("usage").get("output_tokens").asInt();
        assertEquals(
                output == 8 ? "max_tokens" : "end_turn",
                delta.get("delta").get("stop_reason").asText());
        assertTrue(delta.get("delta").get("stop_sequence").isNull());
        assertTrue(
                delta.get("usage").has("input_tokens") && delta.get("usage").has("cache_read_input_tokens"),
                delta.toString());
        // Streamed and whole agree at temperature 0.
        JsonNode whole = ok(messages(body.replace("\"stream\": true", "\"stream\": false")));
        String wholeText = whole.get("content").isEmpty()
                ? ""
                : whole.get("content").get(0).get("text").asText();
        assertEquals(wholeText, text.toString());
    }

    @Test
    void aForcedToolIsCalledWithSchemaValidInput() throws Exception {
        // One call each (disable_parallel_tool_use): noise would otherwise go on calling until max_tokens.
        for (String choice : List.of(
                "{\"type\": \"any\", \"disable_parallel_tool_use\": true}",
                "{\"type\": \"tool\", \"name\": \"set_unit\", \"disable_parallel_tool_use\": true}")) {
            JsonNode m = ok(messages("""
                    {"model": "demo", "max_tokens": 120, "temperature": 1, "tools": [%s], "tool_choice": %s,
                     "messages": [{"role": "user", "content": "Go."}]}""".formatted(UNIT_TOOL, choice)));
            assertEquals("tool_use", m.get("stop_reason").asText(), m.toString());
            JsonNode call = null;
            for (JsonNode block : m.get("content")) {
                if (block.get("type").asText().equals("tool_use")) {
                    call = block;
                }
            }
            assertTrue(call != null && call.get("id").asText().length() > 4, m.toString());
            assertEquals("set_unit", call.get("name").asText());
            assertTrue(
                    List.of("celsius", "fahrenheit")
                            .contains(call.get("input").get("unit").asText()),
                    m.toString());
        }
        // Streamed: the block opens with its id and name and an empty input; the input comes as partial JSON.
        HttpResponse<String> r = messages("""
                {"model": "demo", "max_tokens": 120, "temperature": 1, "stream": true, "tools": [%s],
                 "tool_choice": {"type": "any", "disable_parallel_tool_use": true},
                 "messages": [{"role": "user", "content": "Go."}]}""".formatted(UNIT_TOOL));
        List<Http.Event> events = Http.namedEvents(r);
        StringBuilder json = new StringBuilder();
        JsonNode opened = null;
        for (Http.Event e : events) {
            if (e.name().equals("content_block_start")
                    && e.data().get("content_block").get("type").asText().equals("tool_use")) {
                opened = e.data().get("content_block");
            }
            if (e.name().equals("content_block_delta")
                    && e.data().get("delta").get("type").asText().equals("input_json_delta")) {
                json.append(e.data().get("delta").get("partial_json").asText());
            }
        }
        assertTrue(
                opened != null
                        && opened.get("name").asText().equals("set_unit")
                        && opened.get("input").isEmpty(),
                r.body());
        assertTrue(
                List.of("celsius", "fahrenheit")
                        .contains(JSON.readTree(json.toString()).get("unit").asText()),
                json.toString());
        assertEquals(
                "tool_use",
                events.get(events.size() - 2)
                        .data()
                        .get("delta")
                        .get("stop_reason")
                        .asText());
    }

    @Test
    void aStopSequenceEndsTheMessageAndIsNamed() throws Exception {
        String body = """
                {"model": "demo", "max_tokens": 24, "temperature": 0, %s "messages": [{"role": "user", "content": "Say something long"}]}""";
        JsonNode free = ok(messages(body.formatted("")));
        String text = free.get("content").isEmpty()
                ? ""
                : free.get("content").get(0).get("text").asText();
        assertTrue(text.length() >= 8, "the greedy answer is long enough to cut: " + free);
        String stop = text.substring(4, 7);
        int at = text.indexOf(stop);
        JsonNode cut = ok(messages(body.formatted("\"stop_sequences\": [" + JSON.writeValueAsString(stop) + "],")));
        assertEquals("stop_sequence", cut.get("stop_reason").asText(), cut.toString());
        assertEquals(stop, cut.get("stop_sequence").asText());
        String before = cut.get("content").isEmpty()
                ? ""
                : cut.get("content").get(0).get("text").asText();
        assertEquals(text.substring(0, at), before);
    }

    @Test
    void aMaxTokensBeyondTheSlotGeneratesUntilItIsFull() throws Exception {
        HttpResponse<String> r = messages("""
                {"model": "demo", "max_tokens": 32000, "temperature": 0, "messages": [{"role": "user", "content": "Write a book"}]}""");
        JsonNode m = ok(r);
        int prompt = m.get("usage").get("input_tokens").asInt()
                + m.get("usage").get("cache_read_input_tokens").asInt();
        int limit =
                Integer.parseInt(r.headers().firstValue("X-Forge-Max-Tokens").orElseThrow());
        assertEquals(1024 - prompt, limit, "the room left in the 1024-token slot");
        int output = m.get("usage").get("output_tokens").asInt();
        assertEquals(
                output == limit ? "max_tokens" : "end_turn",
                m.get("stop_reason").asText(),
                r.body());
    }

    @Test
    void errorsHaveAnthropicsShape() throws Exception {
        HttpResponse<String> r = messages("""
                {"model": "no-such-model", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}""");
        assertEquals(404, r.statusCode());
        JsonNode e = JSON.readTree(r.body());
        assertEquals("error", e.get("type").asText());
        assertEquals("not_found_error", e.get("error").get("type").asText());
        assertTrue(e.get("error").get("message").asText().contains("no-such-model"));

        r = messages("""
                {"model": "demo", "messages": [{"role": "user", "content": "hi"}]}""");
        assertEquals(400, r.statusCode());
        assertEquals(
                "invalid_request_error",
                JSON.readTree(r.body()).get("error").get("type").asText());
        assertTrue(JSON.readTree(r.body()).get("error").get("message").asText().contains("max_tokens"));

        r = messages("""
                {"model": "demo", "max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "image",
                 "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]}]}""");
        assertEquals(400, r.statusCode());
        assertTrue(JSON.readTree(r.body()).get("error").get("message").asText().contains("image"), r.body());

        // A prompt that cannot fit is refused before anything is generated, in Anthropic's shape.
        r = messages("""
                {"model": "demo", "max_tokens": 5, "messages": [{"role": "user", "content": "%s"}]}""".formatted("word ".repeat(3000)));
        assertEquals(400, r.statusCode(), r.body());
        assertEquals(
                "invalid_request_error",
                JSON.readTree(r.body()).get("error").get("type").asText());
        assertTrue(JSON.readTree(r.body()).get("error").get("message").asText().contains("context"), r.body());

        r = http.post("/v1/messages/batches", "{}");
        assertEquals(404, r.statusCode());
        assertEquals(
                "not_found_error",
                JSON.readTree(r.body()).get("error").get("type").asText());
        // Chat's errors keep OpenAI's shape.
        assertTrue(JSON.readTree(http.post("/v1/chat/completions", "{}").body())
                .get("error")
                .has("code"));
    }

    @Test
    void countTokensCountsToolsAndSystemToo() throws Exception {
        int bare = ok(http.post("/v1/messages/count_tokens", """
                {"model": "demo", "messages": [{"role": "user", "content": "hi"}]}"""))
                .get("input_tokens")
                .asInt();
        int more = ok(http.post("/v1/messages/count_tokens", """
                {"model": "demo", "system": "You are a careful assistant.", "tools": [%s],
                 "messages": [{"role": "user", "content": "hi"}]}""".formatted(UNIT_TOOL)))
                .get("input_tokens")
                .asInt();
        assertTrue(bare > 0 && more > bare + 10, bare + " vs " + more);
        assertEquals(
                400,
                http.post("/v1/messages/count_tokens", "{\"messages\": []}").statusCode());
    }
}
