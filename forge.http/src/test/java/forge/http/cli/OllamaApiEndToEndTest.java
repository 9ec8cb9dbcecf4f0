package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Ollama's API on a real server with a random-weight Qwen model (alias {@code demo}): the
 * listings, chat and generate streamed as NDJSON and whole, tool calls with object arguments,
 * {@code format} by grammar, {@code options} on the shared sampling reader with the ignored-field
 * report, embeddings, and errors as {@code {"error": "..."}}.
 */
class OllamaApiEndToEndTest {

    @AutoClose
    static StructuredServer server;

    static Http http;

    @BeforeAll
    static void start() throws Exception {
        server = new StructuredServer("qwen", "qwen2.5");
        http = server.http;
    }

    /** The lines of an NDJSON body, each parsed. */
    static List<JsonNode> lines(HttpResponse<String> r) throws Exception {
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(
                "application/x-ndjson", r.headers().firstValue("content-type").orElse(""));
        List<JsonNode> out = new ArrayList<>();
        for (String line : r.body().split("\n")) {
            out.add(JSON.readTree(line));
        }
        return out;
    }

    private static JsonNode error(HttpResponse<String> r, int status) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        JsonNode body = JSON.readTree(r.body());
        assertEquals(1, body.size(), "Ollama's error shape is {\"error\": ...} alone: " + r.body());
        assertTrue(body.get("error").isTextual(), r.body());
        return body;
    }

    @Test
    void versionRootAndTagsAnswerAsOllamaDoes() throws Exception {
        String version = ok(http.get("/api/version")).get("version").asText();
        String[] parts = version.split("\\.");
        assertTrue(
                Integer.parseInt(parts[0]) > 0
                        || Integer.parseInt(parts[1]) > 6
                        || (Integer.parseInt(parts[1]) == 6 && Integer.parseInt(parts[2]) >= 4),
                "Copilot wants at least 0.6.4: " + version);
        HttpResponse<String> root = http.get("/");
        assertEquals(200, root.statusCode());
        assertEquals("Ollama is running", root.body());
        HttpResponse<String> head = http.send(http.request("/").method("HEAD", HttpRequest.BodyPublishers.noBody()));
        assertEquals(200, head.statusCode());
        // A browser still gets the web UI's page at the same path.
        HttpResponse<String> page = http.send(http.request("/").header("Accept", "text/html,*/*"));
        assertTrue(page.body().contains("<div id=\"app\"></div>"), page.body());

        JsonNode models = ok(http.get("/api/tags")).get("models");
        List<String> names = new ArrayList<>();
        models.forEach(m -> names.add(m.get("name").asText()));
        assertTrue(names.containsAll(List.of("tiny-qwen", "demo")), names.toString());
        JsonNode demo = models.get(names.indexOf("demo"));
        assertEquals("gguf", demo.get("details").get("format").asText());
        assertEquals("qwen2", demo.get("details").get("family").asText());
        assertTrue(demo.get("size").asLong() > 0);
        assertTrue(demo.get("digest").asText().matches("[0-9a-f]{64}"), demo.toString());
    }

    @Test
    void showReportsCapabilitiesAndTheContextLengthAndResolvesLatest() throws Exception {
        // Ollama names carry a tag: "demo:latest" is the model named "demo".
        JsonNode show = ok(http.post("/api/show", "{\"model\": \"demo:latest\"}"));
        List<String> capabilities = new ArrayList<>();
        show.get("capabilities").forEach(c -> capabilities.add(c.asText()));
        assertTrue(capabilities.containsAll(List.of("completion", "tools", "embedding")), capabilities.toString());
        assertFalse(capabilities.contains("vision"), capabilities.toString());
        assertTrue(show.get("model_info").get("qwen2.context_length").asLong() > 0, show.toString());
        assertEquals("qwen2", show.get("model_info").get("general.architecture").asText());
        assertTrue(show.get("parameters").asText().startsWith("num_ctx "), show.toString());

        JsonNode ps = ok(http.get("/api/ps")).get("models");
        assertEquals("tiny-qwen", ps.get(0).get("name").asText(), ps.toString());
        assertTrue(ps.get(0).get("context_length").asInt() > 0, ps.toString());
        assertTrue(ps.get(0).has("expires_at"), ps.toString());

        JsonNode missing = error(http.post("/api/show", "{\"model\": \"nobody\"}"), 404);
        assertTrue(missing.get("error").asText().contains("'nobody' not found"), missing.toString());
    }

    @Test
    void chatStreamsNdjsonEndingWithNanosecondDurations() throws Exception {
        HttpResponse<String> r = http.post("/api/chat", """
                {"model": "demo", "messages": [{"role": "user", "content": "Hello"}],
                 "options": {"num_predict": 5, "temperature": 0, "num_ctx": 4096, "num_gpu": 1}}""");
        List<JsonNode> lines = lines(r);
        JsonNode last = lines.getLast();
        assertTrue(last.get("done").asBoolean(), r.body());
        assertEquals("length", last.get("done_reason").asText(), r.body());
        assertEquals(5, last.get("eval_count").asInt(), r.body());
        assertTrue(last.get("prompt_eval_count").asInt() > 0, r.body());
        for (String field : List.of("total_duration", "prompt_eval_duration", "eval_duration")) {
            assertTrue(last.get(field).isIntegralNumber() && last.get(field).asLong() > 0, field + ": " + last);
        }
        // total_duration in nanoseconds: at least the decode's, which is measured in milliseconds.
        assertTrue(
                last.get("total_duration").asLong() >= last.get("eval_duration").asLong(), last.toString());
        StringBuilder text = new StringBuilder();
        for (JsonNode line : lines.subList(0, lines.size() - 1)) {
            assertFalse(line.get("done").asBoolean(), line.toString());
            assertEquals("assistant", line.get("message").get("role").asText());
            assertEquals("demo", line.get("model").asText());
            text.append(line.get("message").get("content").asText());
        }
        // Options without effect here are named, as every door names them.
        assertEquals(
                "options.num_ctx, options.num_gpu",
                r.headers().firstValue("X-Forge-Ignored-Params").orElse(""));

        JsonNode whole = ok(http.post("/api/chat", """
                {"model": "demo", "stream": false, "messages": [{"role": "user", "content": "Hello"}],
                 "options": {"num_predict": 5, "temperature": 0}}"""));
        assertTrue(whole.get("done").asBoolean());
        assertEquals(text.toString(), whole.get("message").get("content").asText(), "streamed and whole agree");
    }

    @Test
    void chatToolCallsCarryTheirArgumentsAsAnObject() throws Exception {
        JsonNode token =
                ok(http.post("/tokenize", "{\"content\": \"<tool_call>\"}")).get("tokens");
        String bias = server.closingBias.substring(0, server.closingBias.length() - 1) + ", \""
                + token.get(0).asInt() + "\": 100}";
        String body = """
                {"model": "demo", "stream": %s, "tools": [%s],
                 "messages": [{"role": "user", "content": "Weather?"}],
                 "options": {"num_predict": 240, "temperature": 1, "seed": 3, "logit_bias": %s}}""";
        for (boolean stream : List.of(false, true)) {
            HttpResponse<String> r =
                    http.post("/api/chat", body.formatted(stream, StructuredOutputEndToEndTest.WEATHER, bias));
            JsonNode message;
            if (stream) {
                List<JsonNode> lines = lines(r);
                message = lines.stream()
                        .filter(l -> l.get("message").has("tool_calls"))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError(r.body()))
                        .get("message");
                assertTrue(lines.getLast().get("done").asBoolean(), r.body());
            } else {
                message = ok(r).get("message");
            }
            JsonNode call = message.get("tool_calls").get(0).get("function");
            assertEquals("get_weather", call.get("name").asText(), r.body());
            assertTrue(call.get("arguments").isObject(), "arguments are an object: " + r.body());
            JsonNode schema = JSON.readTree(StructuredOutputEndToEndTest.WEATHER)
                    .get("function")
                    .get("parameters");
            assertEquals(
                    List.of(),
                    StructuredServer.violations(schema, call.get("arguments").toString()));
        }
        // The call goes back into the conversation, arguments as an object, and its result by tool_name.
        ok(http.post("/api/chat", """
                {"model": "demo", "stream": false, "tools": [%s], "options": {"num_predict": 2},
                 "messages": [{"role": "user", "content": "Weather?"},
                   {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather",
                     "arguments": {"city": "Oslo", "days": 1}}}]},
                   {"role": "tool", "tool_name": "get_weather", "content": "sunny"}]}""".formatted(StructuredOutputEndToEndTest.WEATHER)));
    }

    @Test
    void formatSchemaIsEnforcedByGrammar() throws Exception {
        String schema = """
                {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": false}""";
        JsonNode r = ok(http.post("/api/generate", """
                {"model": "demo", "prompt": "Answer", "stream": false, "format": %s,
                 "options": {"num_predict": 60, "seed": 1, "logit_bias": %s}}""".formatted(schema, server.closingBias)));
        assertEquals(
                List.of(),
                StructuredServer.violations(
                        JSON.readTree(schema), r.get("response").asText()),
                r.toString());
        JsonNode bad = error(
                http.post("/api/generate", "{\"model\": \"demo\", \"prompt\": \"x\", \"format\": \"yaml\"}"), 400);
        assertTrue(bad.get("error").asText().contains("format"), bad.toString());
    }

    @Test
    void generateThroughTheTemplateRawAndWithASuffix() throws Exception {
        List<JsonNode> lines = lines(http.post("/api/generate", """
                {"model": "demo", "prompt": "Hi", "system": "Be brief.", "options": {"num_predict": 3, "ignore_eos": true}}"""));
        JsonNode last = lines.getLast();
        assertTrue(last.get("done").asBoolean(), lines.toString());
        // Random weights may end the turn early; the limit holds either way, and says so when it ends the answer.
        int count = last.get("eval_count").asInt();
        assertTrue(count <= 3, lines.toString());
        assertEquals(count == 3 ? "length" : "stop", last.get("done_reason").asText(), lines.toString());
        assertTrue(lines.stream().allMatch(l -> l.has("response") && !l.has("message")), lines.toString());
        // raw: the prompt as written, not wrapped in the template's turns, so it is shorter.
        JsonNode templated = ok(http.post("/api/generate", """
                {"model": "demo", "prompt": "Hi", "stream": false, "options": {"num_predict": 1}}"""));
        JsonNode raw = ok(http.post("/api/generate", """
                {"model": "demo", "prompt": "Hi", "raw": true, "stream": false, "options": {"num_predict": 1}}"""));
        assertTrue(
                raw.get("prompt_eval_count").asInt()
                        < templated.get("prompt_eval_count").asInt(),
                raw + " vs " + templated);
        // An empty prompt loads the model, as Ollama's clients use it.
        JsonNode load = ok(http.post("/api/generate", "{\"model\": \"demo\"}"));
        assertEquals("load", load.get("done_reason").asText(), load.toString());

        boolean insert = false;
        for (JsonNode c : ok(http.post("/api/show", "{\"model\": \"demo\"}")).get("capabilities")) {
            insert |= c.asText().equals("insert");
        }
        HttpResponse<String> fim = http.post("/api/generate", """
                {"model": "demo", "prompt": "def f(", "suffix": "return 1", "stream": false, "options": {"num_predict": 2}}""");
        // The suffix needs the model's fill-in-the-middle tokens, which 'insert' reports.
        assertEquals(insert ? 200 : 400, fim.statusCode(), fim.body());
    }

    @Test
    void embedAndTheOlderEmbeddings() throws Exception {
        JsonNode embed = ok(http.post("/api/embed", "{\"model\": \"demo\", \"input\": [\"one\", \"two\"]}"));
        assertEquals(2, embed.get("embeddings").size());
        int dims = embed.get("embeddings").get(0).size();
        assertTrue(dims > 0);
        assertTrue(embed.get("prompt_eval_count").asInt() > 0);
        JsonNode old = ok(http.post("/api/embeddings", "{\"model\": \"demo\", \"prompt\": \"one\"}"));
        assertEquals(dims, old.get("embedding").size());
        assertEquals(
                embed.get("embeddings").get(0).get(0).asDouble(),
                old.get("embedding").get(0).asDouble(),
                1e-6,
                "the same input, the same vector");
        error(http.post("/api/embed", "{\"model\": \"demo\"}"), 400);
    }

    @Test
    void refusalsAreOllamasErrorShape() throws Exception {
        error(http.post("/api/chat", "{\"model\": \"nobody\", \"messages\": []}"), 404);
        error(http.post("/api/chat", "{\"messages\": []}"), 400);
        JsonNode images = error(http.post("/api/chat", """
                {"model": "demo", "messages": [{"role": "user", "content": "What is it?", "images": ["iVBORw0KGgo="]}]}"""), 400);
        // read by the one image reader: a PNG signature alone is a cut header, named by its field
        assertTrue(
                images.get("error").asText().contains("messages[0].images[0] is a truncated or malformed PNG"),
                images.toString());
        JsonNode generated = error(
                http.post("/api/generate", "{\"model\": \"demo\", \"prompt\": \"x\", \"images\": [\"iVBORw0KGgo=\"]}"),
                400);
        assertTrue(
                generated.get("error").asText().contains("images[0] is a truncated or malformed PNG"),
                generated.toString());
        JsonNode think = error(http.post("/api/chat", """
                {"model": "demo", "think": "hard", "messages": [{"role": "user", "content": "x"}]}"""), 400);
        assertTrue(think.get("error").asText().contains("think"), think.toString());
        JsonNode option = error(http.post("/api/chat", """
                {"model": "demo", "options": {"temperature": "hot"}, "messages": [{"role": "user", "content": "x"}]}"""), 400);
        assertTrue(option.get("error").asText().contains("'options.temperature'"), option.toString());
        error(http.get("/api/nothing"), 404);
        error(http.get("/api/chat"), 405);
        JsonNode registry = error(http.post("/api/pull", "{\"model\": \"llama3.2\"}"), 400);
        assertTrue(registry.get("error").asText().contains("Ollama's registry"), registry.toString());
    }
}
