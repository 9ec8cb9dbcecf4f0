package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tools on a model whose template has no tool-call syntax (llama-server's built-in {@code llama2}
 * format, which renders roles and text only): the generic format offers them, forces a call by
 * grammar, parses one the model writes on its own, and the listings say so; {@code --strict}
 * keeps the refusal.
 */
class GenericToolCallsEndToEndTest {

    @AutoClose
    static StructuredServer server;

    @AutoClose
    static TestServer strict;

    @BeforeAll
    static void start() throws Exception {
        server = new StructuredServer("qwen", "llama2");
        strict = TestServer.serve(
                TestServer.model("tiny-qwen", SynthSpec.tiny("qwen")),
                "--alias demo -c 1024 -np 1 -t 1 --template llama2 --strict");
    }

    private static String call(String choice, String bias) {
        return """
                {"model": "demo", "max_tokens": 240, "temperature": 1, "seed": 2, "logit_bias": %s,
                 "tools": [%s, %s], "tool_choice": %s,
                 "messages": [{"role": "user", "content": "Weather?"}]}""".formatted(bias, StructuredOutputEndToEndTest.WEATHER, StructuredOutputEndToEndTest.CLOCK, choice);
    }

    private static List<String> capabilities(JsonNode model) {
        List<String> out = new ArrayList<>();
        model.get("capabilities").forEach(c -> out.add(c.asText()));
        return out;
    }

    @Test
    void theListingsReportToolsInTheGenericFormat() throws Exception {
        JsonNode model = ok(server.http.get("/v1/models/demo"));
        assertTrue(capabilities(model).contains("tools"), model.toString());
        assertEquals("generic", model.get("tool_format").asText(), model.toString());
        JsonNode show = ok(server.http.post("/api/show", "{\"model\": \"demo\"}"));
        assertTrue(capabilities(show).contains("tools"), show.toString());
        assertEquals("generic", show.get("tool_format").asText(), show.toString());

        JsonNode refused = ok(strict.http().get("/v1/models/demo"));
        assertFalse(capabilities(refused).contains("tools"), refused.toString());
        assertFalse(refused.has("tool_format"), refused.toString());
        JsonNode strictShow = ok(strict.http().post("/api/show", "{\"model\": \"demo\"}"));
        assertFalse(capabilities(strictShow).contains("tools"), strictShow.toString());
    }

    @Test
    void aRequiredOrNamedCallIsForcedByGrammar() throws Exception {
        for (String choice :
                List.of("\"required\"", "{\"type\": \"function\", \"function\": {\"name\": \"get_weather\"}}")) {
            JsonNode body = ok(server.post(call(choice, server.closingBias)));
            StructuredOutputEndToEndTest.validToolCalls(body);
            JsonNode choice0 = body.get("choices").get(0);
            assertEquals("tool_calls", choice0.get("finish_reason").asText(), body.toString());
            if (choice.startsWith("{")) {
                assertEquals(
                        "get_weather",
                        choice0.get("message")
                                .get("tool_calls")
                                .get(0)
                                .get("function")
                                .get("name")
                                .asText());
            }
        }
    }

    @Test
    void autoParsesACallTheModelWrites() throws Exception {
        JsonNode token = ok(server.http.post("/tokenize", "{\"content\": \"<tool_call>\"}"))
                .get("tokens");
        assertEquals(1, token.size(), token.toString());
        String bias = server.closingBias.substring(0, server.closingBias.length() - 1) + ", \""
                + token.get(0).asInt() + "\": 100}";
        JsonNode body = ok(server.post(call("\"auto\"", bias)));
        JsonNode choice = body.get("choices").get(0);
        assertEquals("tool_calls", choice.get("finish_reason").asText(), body.toString());
        StructuredOutputEndToEndTest.validToolCalls(body);
        assertTrue(
                choice.get("message").get("content").isNull()
                        || !choice.get("message").get("content").asText().contains("<tool_call>"),
                body.toString());
    }

    @Test
    void strictKeepsTheRefusal() throws Exception {
        HttpResponse<String> r = strict.http().post("/v1/chat/completions", call("\"required\"", "{}"));
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(
                JSON.readTree(r.body()).get("error").get("message").asText().contains("no tool-call syntax"), r.body());
    }

    /** {@code --strict} on Ollama's routes: an option without effect is refused in Ollama's shape, naming it. */
    @Test
    void strictRefusesAnOllamaOptionWithoutEffect() throws Exception {
        HttpResponse<String> r = strict.http().post("/api/chat", """
                {"model": "demo", "options": {"num_ctx": 8192}, "messages": [{"role": "user", "content": "hi"}]}""");
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(JSON.readTree(r.body()).get("error").asText().contains("options.num_ctx"), r.body());
    }
}
