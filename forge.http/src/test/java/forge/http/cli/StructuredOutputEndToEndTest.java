package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** response_format, grammar and tool_choice through the real server, on a random-weight model. */
class StructuredOutputEndToEndTest {

    static final String WEATHER = """
            {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
              "properties": {"city": {"type": "string", "maxLength": 12}, "days": {"type": "integer", "minimum": 1, "maximum": 7}},
              "required": ["city", "days"], "additionalProperties": false}}}""";
    static final String CLOCK = """
            {"type": "function", "function": {"name": "set_alarm", "parameters": {"type": "object",
              "properties": {"at": {"type": "string", "format": "time"}}, "required": ["at"], "additionalProperties": false}}}""";

    @AutoClose
    static StructuredServer server;

    @BeforeAll
    static void start() throws Exception {
        // The generic ChatML template's tool-call syntax; the family templates bring their own.
        server = new StructuredServer("generic", "generic");
    }

    private static String request(String extra) {
        return """
                {"model": "demo", "max_tokens": 300, "temperature": 1, "seed": 5, "logit_bias": %s, %s,
                 "messages": [{"role": "user", "content": "Go."}]}""".formatted(server.closingBias, extra);
    }

    private static JsonNode parameters(String tool) throws Exception {
        return JSON.readTree(tool).get("function").get("parameters");
    }

    /**
     * The tool calls of {@code body}'s first choice, after asserting that it finished with at least
     * one and that each call's arguments are valid under its tool's ({@link #WEATHER} or
     * {@link #CLOCK}) parameters.
     */
    static JsonNode validToolCalls(JsonNode body) throws Exception {
        JsonNode choice = body.get("choices").get(0);
        assertEquals("tool_calls", choice.get("finish_reason").asText(), body.toString());
        JsonNode calls = choice.get("message").get("tool_calls");
        assertTrue(calls.size() >= 1, body.toString());
        for (JsonNode call : calls) {
            String name = call.get("function").get("name").asText();
            JsonNode schema = parameters(name.equals("get_weather") ? WEATHER : CLOCK);
            assertEquals(
                    List.of(),
                    StructuredServer.violations(
                            schema, call.get("function").get("arguments").asText()),
                    body.toString());
        }
        return calls;
    }

    private static JsonNode error(HttpResponse<String> r) throws Exception {
        assertEquals(400, r.statusCode(), r.body());
        return JSON.readTree(r.body()).get("error");
    }

    @Test
    void jsonSchemaAnswersAreValidAgainstTheirSchema() throws Exception {
        String schema = """
                {"type": "object", "properties": {"ok": {"type": "boolean"}, "n": {"type": "integer", "minimum": 0, "maximum": 50},
                 "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 3}}, "required": ["ok", "n", "tags"]}""";
        JsonNode body = ok(server.post(request(
                "\"response_format\": {\"type\": \"json_schema\", \"json_schema\": {\"name\": \"x\", \"schema\": "
                        + schema + "}}")));
        JsonNode choice = body.get("choices").get(0);
        assertEquals("stop", choice.get("finish_reason").asText());
        assertEquals(
                List.of(),
                StructuredServer.violations(
                        JSON.readTree(schema),
                        choice.get("message").get("content").asText()));
        assertTrue(
                server.post(request(
                                "\"response_format\": {\"type\": \"json_schema\", \"json_schema\": {\"name\": \"x\", \"schema\": "
                                        + schema + "}}"))
                        .headers()
                        .firstValue("X-Forge-Ignored-Params")
                        .isEmpty(),
                "response_format is not ignored");
    }

    @Test
    void jsonObjectAndRawGrammarConstrainTheOutput() throws Exception {
        JsonNode object = ok(server.post(request("\"response_format\": {\"type\": \"json_object\"}")));
        assertTrue(JSON.readTree(object.get("choices")
                        .get(0)
                        .get("message")
                        .get("content")
                        .asText())
                .isObject());
        for (long seed = 1; seed <= 3; seed++) {
            JsonNode g =
                    ok(server.post(request("\"seed\": " + seed + ", \"grammar\": \"root ::= \\\"yes\\\" | \\\"no\\\"\"")
                            .replace("\"seed\": 5, ", "")));
            String content =
                    g.get("choices").get(0).get("message").get("content").asText();
            assertTrue(content.equals("yes") || content.equals("no"), content);
        }
    }

    @Test
    void toolChoiceRequiredCallsAToolWithValidArguments() throws Exception {
        for (long seed = 1; seed <= 3; seed++) {
            JsonNode body =
                    ok(server.post(request("\"tools\": [" + WEATHER + ", " + CLOCK + "], \"tool_choice\": \"required\"")
                            .replace("\"seed\": 5", "\"seed\": " + seed)));
            for (JsonNode call : validToolCalls(body)) {
                assertTrue(call.get("id").asText().startsWith("call_"));
            }
        }
    }

    @Test
    void aNamedFunctionForcesThatFunctionAndParallelFalseAllowsOneCall() throws Exception {
        for (long seed = 1; seed <= 3; seed++) {
            JsonNode body = ok(server.post(request(
                            "\"tools\": [" + WEATHER + ", " + CLOCK + "], \"parallel_tool_calls\": false, "
                                    + "\"tool_choice\": {\"type\": \"function\", \"function\": {\"name\": \"set_alarm\"}}")
                    .replace("\"seed\": 5", "\"seed\": " + seed)));
            JsonNode calls = body.get("choices").get(0).get("message").get("tool_calls");
            assertEquals(1, calls.size(), body.toString());
            assertEquals("set_alarm", calls.get(0).get("function").get("name").asText());
            assertEquals(
                    List.of(),
                    StructuredServer.violations(
                            parameters(CLOCK),
                            calls.get(0).get("function").get("arguments").asText()));
        }
    }

    @Test
    void streamedToolCallsConcatenateToValidArguments() throws Exception {
        HttpResponse<String> r =
                server.post(request("\"stream\": true, \"tools\": [" + WEATHER + "], \"tool_choice\": \"required\""));
        assertEquals(200, r.statusCode());
        Map<Integer, StringBuilder> args = new TreeMap<>();
        Map<Integer, String> names = new TreeMap<>();
        Map<Integer, Integer> pieces = new TreeMap<>();
        String finish = null;
        for (String line : r.body().split("\n")) {
            if (!line.startsWith("data: {")) {
                continue;
            }
            JsonNode chunk = JSON.readTree(line.substring(6));
            for (JsonNode choice : chunk.path("choices")) {
                for (JsonNode call : choice.path("delta").path("tool_calls")) {
                    int index = call.get("index").asInt();
                    if (call.path("function").has("name")) {
                        names.put(index, call.get("function").get("name").asText());
                    }
                    args.computeIfAbsent(index, i -> new StringBuilder())
                            .append(call.path("function").path("arguments").asText());
                    pieces.merge(index, 1, Integer::sum);
                }
                if (!choice.path("finish_reason").isNull() && choice.has("finish_reason")) {
                    finish = choice.get("finish_reason").asText();
                }
            }
        }
        assertEquals("tool_calls", finish, r.body());
        assertTrue(!args.isEmpty(), r.body());
        for (var e : args.entrySet()) {
            assertEquals("get_weather", names.get(e.getKey()));
            // The arguments arrive as the model writes them, not in one piece when the call closes.
            assertTrue(
                    pieces.get(e.getKey()) > 1,
                    "call " + e.getKey() + " came in " + pieces.get(e.getKey()) + " chunk(s): " + r.body());
            assertEquals(
                    List.of(),
                    StructuredServer.violations(
                            parameters(WEATHER), e.getValue().toString()));
        }
    }

    @Test
    void unsupportedSchemaFeaturesAre400NamingThem() throws Exception {
        JsonNode e = error(server.post(request(
                "\"response_format\": {\"type\": \"json_schema\", \"json_schema\": {\"name\": \"x\", \"schema\": "
                        + "{\"type\": \"object\", \"properties\": {\"a\": {\"not\": {\"type\": \"string\"}}}}}}")));
        assertEquals("unsupported_schema_feature", e.get("code").asText());
        assertTrue(e.get("message").asText().contains("'not' at '/properties/a/not'"), e.toString());
        JsonNode t = error(
                server.post(
                        request(
                                "\"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": "
                                        + "{\"type\": \"object\", \"properties\": {\"e\": {\"type\": \"string\", \"format\": \"email\"}}}}}], \"tool_choice\": \"required\"")));
        assertEquals("tools[0].function.parameters", t.get("param").asText());
        assertTrue(t.get("message").asText().contains("format: email"), t.toString());
    }

    @Test
    void invalidSchemasAndGrammarsAre400SayingWhere() throws Exception {
        JsonNode s = error(server.post(request(
                "\"response_format\": {\"type\": \"json_schema\", \"json_schema\": {\"name\": \"x\", \"schema\": "
                        + "{\"type\": \"object\", \"properties\": {\"a\": {\"$ref\": \"#/$defs/missing\"}}}}}")));
        assertEquals("response_format.json_schema.schema", s.get("param").asText());
        assertTrue(s.get("message").asText().contains("'/properties/a/$ref'"), s.toString());
        JsonNode g = error(server.post(request("\"grammar\": \"root ::= item\\nitem ::= [a-z\"")));
        assertEquals("grammar", g.get("param").asText());
        assertTrue(g.get("message").asText().contains("line 2"), g.toString());
        JsonNode u = error(server.post(request("\"grammar\": \"root ::= missing-rule\"")));
        assertTrue(u.get("message").asText().contains("undefined rule 'missing-rule'"), u.toString());
        JsonNode c = error(server.post(request("\"tools\": [" + WEATHER
                + "], \"tool_choice\": {\"type\": \"function\", \"function\": {\"name\": \"nope\"}}")));
        assertEquals("tool_choice", c.get("param").asText());
        assertEquals(
                "response_format.type",
                error(server.post(request("\"response_format\": {\"type\": \"xml\"}")))
                        .get("param")
                        .asText());
    }

    private static String plain(String extra) {
        return """
                {"model": "demo", "max_tokens": 8, %s, "messages": [{"role": "user", "content": "Go."}]}""".formatted(extra);
    }

    /**
     * Each of these requests aborted the whole process inside llama.cpp (a C++ exception or a stack
     * overflow in a downcall), or was a 500: now each is its own 400, and the server serves on.
     */
    @Test
    void requestsThatAbortedLlamaCppAre400sAndTheServerServesOn() throws Exception {
        JsonNode nul = error(server.post(plain("\"grammar\": \"root ::= [\\\\x00]\"")));
        assertEquals("no_allowed_token", nul.get("code").asText(), nul.toString());
        List<JsonNode> streamed =
                Http.events(server.post(plain("\"stream\": true, \"grammar\": \"root ::= [\\\\x00]\"")));
        assertEquals(
                "no_allowed_token", streamed.getLast().get("error").get("code").asText(), streamed.toString());

        String deep = "root ::= " + "(".repeat(5000) + "\\\"a\\\"" + ")".repeat(5000);
        JsonNode nested = error(server.post(plain("\"grammar\": \"" + deep + "\"")));
        assertEquals("grammar", nested.get("param").asText());
        assertTrue(nested.get("message").asText().contains("nest more than 128 deep"), nested.toString());

        JsonNode repeated = error(server.post(plain("\"grammar\": \"root ::= \\\"a\\\"{1000000}\"")));
        assertTrue(repeated.get("message").asText().contains("over the limit of 2000"), repeated.toString());

        JsonNode items = error(
                server.post(plain("\"response_format\": {\"type\": \"json_schema\", \"json_schema\": {\"name\": \"x\","
                        + " \"schema\": {\"type\": \"array\", \"minItems\": 1000000}}}")));
        assertEquals("unsupported_schema_feature", items.get("code").asText(), items.toString());
        assertTrue(items.get("message").asText().contains("over the limit of 2000"), items.toString());

        StringBuilder banAll = new StringBuilder("{");
        for (int t = 0; t < server.vocabSize; t++) {
            banAll.append(t == 0 ? "" : ", ").append('"').append(t).append("\": -100");
        }
        banAll.append('}');
        JsonNode banned = error(server.post(plain("\"grammar\": \"root ::= [a-z]+\", \"logit_bias\": " + banAll)));
        assertEquals("no_allowed_token", banned.get("code").asText(), banned.toString());

        JsonNode outside = error(server.post(plain("\"logit_bias\": {\"" + server.vocabSize + "\": -100}")));
        assertEquals("logit_bias", outside.get("param").asText(), outside.toString());

        assertEquals(200, server.http.get("/health").statusCode());
        JsonNode fine = ok(server.post(plain("\"grammar\": \"root ::= [a-z]+\"")));
        assertTrue(
                fine.get("choices")
                        .get(0)
                        .get("message")
                        .get("content")
                        .asText()
                        .matches("[a-z]+"),
                fine.toString());
    }
}
