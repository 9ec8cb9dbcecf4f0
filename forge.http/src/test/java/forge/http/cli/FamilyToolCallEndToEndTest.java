package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Forced tool calls through a family template's own syntax (Qwen 2.5's {@code <tool_call>} JSON, with
 * the tools listed in its system block), from grammar to parsed {@code tool_calls}.
 */
class FamilyToolCallEndToEndTest {

    @AutoClose
    static StructuredServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new StructuredServer("qwen", "qwen2.5");
    }

    @Test
    void qwenToolChoiceRequiredCallsAToolWithValidArguments() throws Exception {
        for (long seed = 1; seed <= 2; seed++) {
            // Qwen's tool block makes the prompt long for a tiny vocabulary: leave room in the 1024-token slot.
            HttpResponse<String> r = server.post("""
                    {"model": "demo", "max_tokens": 240, "temperature": 1, "seed": %d, "logit_bias": %s,
                     "tools": [%s, %s], "tool_choice": "required",
                     "messages": [{"role": "user", "content": "Go."}]}""".formatted(
                            seed,
                            server.closingBias,
                            StructuredOutputEndToEndTest.WEATHER,
                            StructuredOutputEndToEndTest.CLOCK));
            JsonNode body = ok(r);
            StructuredOutputEndToEndTest.validToolCalls(body);
            JsonNode choice = body.get("choices").get(0);
            assertTrue(
                    choice.get("message").get("content").isNull()
                            || !choice.get("message").get("content").asText().contains("<tool_call>"),
                    "no raw markup in content: " + body);
        }
    }

    /**
     * Streamed, a Qwen call's arguments arrive as the model writes them: the first tool_calls
     * chunk names the function, later ones add to its arguments, which concatenate to
     * schema-valid JSON. No markup leaks into content.
     */
    @Test
    void qwenStreamsToolCallArgumentsAsTheyAreWritten() throws Exception {
        HttpResponse<String> r = server.post("""
                {"model": "demo", "max_tokens": 240, "temperature": 1, "seed": 1, "logit_bias": %s, "stream": true,
                 "tools": [%s], "tool_choice": "required",
                 "messages": [{"role": "user", "content": "Go."}]}""".formatted(server.closingBias, StructuredOutputEndToEndTest.WEATHER));
        assertEquals(200, r.statusCode());
        StringBuilder arguments = new StringBuilder();
        StringBuilder content = new StringBuilder();
        int pieces = 0;
        String name = null;
        for (JsonNode chunk : Http.events(r)) {
            for (JsonNode choice : chunk.path("choices")) {
                content.append(choice.path("delta").path("content").asText(""));
                for (JsonNode call : choice.path("delta").path("tool_calls")) {
                    assertEquals(0, call.get("index").asInt(), r.body());
                    if (pieces++ == 0) {
                        name = call.get("function").get("name").asText();
                        assertTrue(call.get("id").asText().startsWith("call_"), r.body());
                    } else {
                        assertTrue(
                                !call.has("id") && !call.get("function").has("name"),
                                "later chunks only add arguments: " + call);
                    }
                    arguments.append(call.get("function").get("arguments").asText());
                }
            }
        }
        assertEquals("get_weather", name, r.body());
        assertTrue(pieces > 1, "the arguments came in " + pieces + " chunk(s): " + r.body());
        JsonNode schema = JSON.readTree(StructuredOutputEndToEndTest.WEATHER)
                .get("function")
                .get("parameters");
        assertEquals(List.of(), StructuredServer.violations(schema, arguments.toString()), r.body());
        assertTrue(
                !content.toString().contains("<tool_call>")
                        && !content.toString().contains("{"),
                "no markup in content: " + content);
    }

    /** The id of Qwen's {@code <tool_call>} token, which opens a call in its format. */
    private static int toolCallToken() throws Exception {
        HttpResponse<String> r = server.http.post("/tokenize", "{\"content\": \"<tool_call>\"}");
        JsonNode tokens = JSON.readTree(r.body()).get("tokens");
        assertEquals(1, tokens.size(), "<tool_call> is one token in the qwen vocabulary: " + r.body());
        return tokens.get(0).asInt();
    }

    /** The closing bias plus a push towards opening a tool call right away. */
    private static String biasTowardsACall() throws Exception {
        return server.closingBias.substring(0, server.closingBias.length() - 1) + ", \"" + toolCallToken() + "\": 100}";
    }

    @Test
    void autoLeavesTheModelFreeUntilItOpensACallThenConstrainsIt() throws Exception {
        // A model that opens <tool_call> under "auto": the lazy grammar engages there, so the call
        // that follows is well-formed and its arguments match the schema.
        HttpResponse<String> r = server.post("""
                {"model": "demo", "max_tokens": 240, "temperature": 1, "seed": 3, "logit_bias": %s,
                 "tools": [%s], "tool_choice": "auto",
                 "messages": [{"role": "user", "content": "Go."}]}""".formatted(biasTowardsACall(), StructuredOutputEndToEndTest.WEATHER));
        JsonNode choice = ok(r).get("choices").get(0);
        assertEquals("tool_calls", choice.get("finish_reason").asText(), r.body());
        JsonNode call = choice.get("message").get("tool_calls").get(0);
        assertEquals("get_weather", call.get("function").get("name").asText());
        JsonNode schema = JSON.readTree(StructuredOutputEndToEndTest.WEATHER)
                .get("function")
                .get("parameters");
        assertEquals(
                List.of(),
                StructuredServer.violations(
                        schema, call.get("function").get("arguments").asText()),
                r.body());
    }

    @Test
    void autoWithoutACallIsPlainContent() throws Exception {
        // Without the push the noise never writes <tool_call>: the grammar never engages, the answer is text.
        HttpResponse<String> r = server.post("""
                {"model": "demo", "max_tokens": 16, "temperature": 1, "seed": 3, "logit_bias": {"%d": -100},
                 "tools": [%s], "tool_choice": "auto",
                 "messages": [{"role": "user", "content": "Go."}]}""".formatted(toolCallToken(), StructuredOutputEndToEndTest.WEATHER));
        JsonNode choice = lengthWithoutToolCalls(r);
        assertTrue(choice.get("message").get("content").isTextual());
    }

    @Test
    void noneNeverYieldsToolCallsEvenWhenTheModelWritesTheMarkup() throws Exception {
        HttpResponse<String> r = server.post("""
                {"model": "demo", "max_tokens": 12, "temperature": 1, "seed": 3, "logit_bias": {"%d": 100},
                 "tools": [%s], "tool_choice": "none",
                 "messages": [{"role": "user", "content": "Go."}]}""".formatted(toolCallToken(), StructuredOutputEndToEndTest.WEATHER));
        lengthWithoutToolCalls(r);
    }

    /** The response's one choice, checked to have run out of tokens without a tool call. */
    private static JsonNode lengthWithoutToolCalls(HttpResponse<String> r) throws Exception {
        JsonNode choice = ok(r).get("choices").get(0);
        assertEquals("length", choice.get("finish_reason").asText(), r.body());
        assertTrue(
                choice.get("message").get("tool_calls") == null
                        || choice.get("message").get("tool_calls").isEmpty(),
                r.body());
        return choice;
    }
}
