package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.assertParam;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * {@code /v1/responses} against the real server: the response object and its output items, the
 * stream's events in the official order with their sequence numbers, forced function calls,
 * structured text, stored responses continued with {@code previous_response_id} (reusing the
 * cached prefix), {@code GET} and {@code DELETE}, and {@code store: false}.
 */
class ResponsesEndToEndTest {

    @AutoClose
    static final TestServer server =
            TestServer.serve(TestServer.model("tiny-qwen", SynthSpec.tiny("qwen")), "--alias demo -c 2048 -np 2 -t 2");

    static final Http http = server.http();

    static final String UNIT_TOOL = """
            {"type": "function", "name": "set_unit", "description": "Choose the unit", "parameters": {"type": "object",
             "properties": {"unit": {"enum": ["celsius", "fahrenheit"]}}, "required": ["unit"], "additionalProperties": false}}""";

    static HttpResponse<String> create(String body) throws Exception {
        return http.post("/v1/responses", body);
    }

    /** The text of a response's message items. */
    static String outputText(JsonNode response) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode item : response.get("output")) {
            if (item.get("type").asText().equals("message")) {
                item.get("content").forEach(p -> sb.append(p.get("text").asText()));
            }
        }
        return sb.toString();
    }

    @Test
    void aWholeResponseHasItsOutputItemsAndUsage() throws Exception {
        HttpResponse<String> r = create("""
                {"model": "demo", "instructions": "Be brief.", "input": "Hello", "max_output_tokens": 6, "temperature": 0,
                 "metadata": {"ticket": "42"}}""");
        JsonNode resp = ok(r);
        assertTrue(resp.get("id").asText().startsWith("resp_"));
        assertEquals("response", resp.get("object").asText());
        assertEquals("tiny-qwen", resp.get("model").asText());
        assertEquals("42", resp.get("metadata").get("ticket").asText());
        assertEquals("Be brief.", resp.get("instructions").asText());
        JsonNode usage = resp.get("usage");
        int output = usage.get("output_tokens").asInt();
        assertEquals(
                usage.get("input_tokens").asInt() + output,
                usage.get("total_tokens").asInt());
        assertTrue(usage.get("input_tokens_details").has("cached_tokens"));
        if (output == 6) {
            assertEquals("incomplete", resp.get("status").asText(), r.body());
            assertEquals(
                    "max_output_tokens",
                    resp.get("incomplete_details").get("reason").asText());
        } else {
            assertEquals("completed", resp.get("status").asText(), r.body());
        }
        for (JsonNode item : resp.get("output")) {
            assertEquals("message", item.get("type").asText());
            assertTrue(item.get("id").asText().startsWith("msg_"));
            assertEquals("assistant", item.get("role").asText());
            assertEquals("output_text", item.get("content").get(0).get("type").asText());
        }
        assertEquals("6", r.headers().firstValue("X-Forge-Max-Tokens").orElse(null));
    }

    @Test
    void aStreamIsTheOfficialEventsInOrderWithSequenceNumbers() throws Exception {
        String body = """
                {"model": "demo", "input": [{"role": "user", "content": [{"type": "input_text", "text": "Count to three"}]}],
                 "max_output_tokens": 8, "temperature": 0, "stream": true}""";
        HttpResponse<String> r = create(body);
        assertTrue(
                r.body()
                        .startsWith(
                                "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,"),
                r.body());
        List<Http.Event> events = Http.namedEvents(r);
        for (int i = 0; i < events.size(); i++) {
            assertEquals(i, events.get(i).data().get("sequence_number").asInt(), "numbered in order");
        }
        String names = events.stream().map(Http.Event::name).collect(Collectors.joining(" "));
        assertTrue(
                names.matches("response\\.created response\\.in_progress"
                        + "( response\\.output_item\\.added response\\.content_part\\.added( response\\.output_text\\.delta)+"
                        + " response\\.output_text\\.done response\\.content_part\\.done response\\.output_item\\.done)?"
                        + " response\\.(completed|incomplete)"),
                names);
        assertEquals(
                "in_progress",
                events.getFirst().data().get("response").get("status").asText());
        StringBuilder text = new StringBuilder();
        String itemId = null;
        for (Http.Event e : events) {
            if (e.name().equals("response.output_text.delta")) {
                text.append(e.data().get("delta").asText());
                assertEquals(0, e.data().get("output_index").asInt());
                assertEquals(0, e.data().get("content_index").asInt());
                itemId = e.data().get("item_id").asText();
            }
            if (e.name().equals("response.output_text.done")) {
                assertEquals(text.toString(), e.data().get("text").asText());
            }
        }
        JsonNode last = events.getLast().data().get("response");
        assertEquals(text.toString(), outputText(last));
        if (itemId != null) {
            assertEquals(itemId, last.get("output").get(0).get("id").asText());
        }
        JsonNode whole = ok(create(body.replace("\"stream\": true", "\"stream\": false")));
        assertEquals(outputText(whole), text.toString(), "streamed and whole agree at temperature 0");
    }

    @Test
    void aForcedFunctionCallHasSchemaValidArguments() throws Exception {
        JsonNode resp = ok(create("""
                {"model": "demo", "input": "Go.", "max_output_tokens": 120, "temperature": 1, "tools": [%s],
                 "tool_choice": "required", "parallel_tool_calls": false}""".formatted(UNIT_TOOL)));
        JsonNode call = null;
        for (JsonNode item : resp.get("output")) {
            if (item.get("type").asText().equals("function_call")) {
                call = item;
            }
        }
        assertTrue(call != null, resp.toString());
        assertEquals("set_unit", call.get("name").asText());
        assertTrue(
                call.get("id").asText().startsWith("fc_")
                        && !call.get("call_id").asText().isEmpty(),
                call.toString());
        assertTrue(List.of("celsius", "fahrenheit")
                .contains(JSON.readTree(call.get("arguments").asText())
                        .get("unit")
                        .asText()));
        assertEquals("completed", resp.get("status").asText());

        HttpResponse<String> r = create("""
                {"model": "demo", "input": "Go.", "max_output_tokens": 120, "temperature": 1, "stream": true, "tools": [%s],
                 "tool_choice": {"type": "function", "name": "set_unit"}, "parallel_tool_calls": false}""".formatted(UNIT_TOOL));
        List<Http.Event> events = Http.namedEvents(r);
        StringBuilder args = new StringBuilder();
        String done = null;
        boolean added = false;
        for (Http.Event e : events) {
            switch (e.name()) {
                case "response.output_item.added" ->
                    added |= e.data().get("item").get("type").asText().equals("function_call")
                            && e.data().get("item").get("name").asText().equals("set_unit");
                case "response.function_call_arguments.delta" ->
                    args.append(e.data().get("delta").asText());
                case "response.function_call_arguments.done" ->
                    done = e.data().get("arguments").asText();
                default -> {}
            }
        }
        assertTrue(added, r.body());
        assertEquals(args.toString(), done);
        assertTrue(List.of("celsius", "fahrenheit")
                .contains(JSON.readTree(done).get("unit").asText()));
        assertEquals("response.completed", events.getLast().name());
    }

    @Test
    void textFormatJsonSchemaShapesTheOutput() throws Exception {
        JsonNode resp = ok(create("""
                {"model": "demo", "input": "Pick one", "max_output_tokens": 60, "temperature": 1,
                 "text": {"format": {"type": "json_schema", "name": "pick", "strict": true, "schema": {"type": "object",
                  "properties": {"pick": {"enum": ["a", "b"]}}, "required": ["pick"], "additionalProperties": false}}}}"""));
        assertTrue(
                List.of("a", "b")
                        .contains(JSON.readTree(outputText(resp)).get("pick").asText()),
                resp.toString());
    }

    @Test
    void aStoredResponseIsContinuedFetchedAndDeleted() throws Exception {
        String instructions = "You are a helpful assistant. ".repeat(6);
        JsonNode first = ok(create("""
                {"model": "demo", "instructions": "%s", "input": "Hello", "max_output_tokens": 4, "temperature": 0}""".formatted(instructions)));
        String id = first.get("id").asText();
        JsonNode second = ok(create("""
                {"model": "demo", "instructions": "%s", "previous_response_id": "%s", "input": "And then?",
                 "max_output_tokens": 4, "temperature": 0}""".formatted(instructions, id)));
        assertEquals(id, second.get("previous_response_id").asText());
        int firstPrompt = first.get("usage").get("input_tokens").asInt();
        JsonNode usage = second.get("usage");
        assertTrue(usage.get("input_tokens").asInt() > firstPrompt, "the conversation goes on: " + usage);
        // The previous turn's prompt is the new one's prefix: the slot's cache has it.
        assertTrue(
                usage.get("input_tokens_details").get("cached_tokens").asInt() >= firstPrompt - 1,
                usage + " after " + firstPrompt);

        JsonNode fetched = ok(http.get("/v1/responses/" + id));
        assertEquals(first, fetched);
        HttpResponse<String> deleted =
                http.send(http.request("/v1/responses/" + id).DELETE());
        assertEquals(
                "{\"id\":\"" + id + "\",\"object\":\"response.deleted\",\"deleted\":true}",
                ok(deleted).toString());
        assertEquals(404, http.get("/v1/responses/" + id).statusCode());
        HttpResponse<String> gone = create("""
                {"model": "demo", "previous_response_id": "%s", "input": "x", "max_output_tokens": 2}""".formatted(id));
        assertEquals(400, gone.statusCode());
        assertEquals(
                "previous_response_not_found",
                JSON.readTree(gone.body()).get("error").get("code").asText());

        JsonNode unstored = ok(create("""
                {"model": "demo", "input": "Hello", "max_output_tokens": 2, "store": false}"""));
        assertEquals(false, unstored.get("store").asBoolean());
        assertEquals(
                404, http.get("/v1/responses/" + unstored.get("id").asText()).statusCode());
    }

    @Test
    void errorsKeepOpenAisShape() throws Exception {
        HttpResponse<String> r = create("""
                {"model": "no-such-model", "input": "hi"}""");
        assertEquals(404, r.statusCode());
        assertEquals(
                "model_not_found",
                JSON.readTree(r.body()).get("error").get("code").asText());
        r = create("""
                {"model": "demo"}""");
        assertParam(r, "input");
        r = create("""
                {"model": "demo", "input": "x", "max_output_tokens": 2, "web_search_options": {}, "background": false}""");
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(
                "background, web_search_options",
                r.headers().firstValue("X-Forge-Ignored-Params").orElse(""));
        HttpRequest.Builder put = http.request("/v1/responses/resp_x").PUT(HttpRequest.BodyPublishers.noBody());
        assertEquals(405, http.send(put).statusCode());
    }
}
