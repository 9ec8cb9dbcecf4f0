package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.assertParam;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starts the real server (CLI parsing, plugins, llama.cpp, Jetty) on a free loopback port and talks HTTP to it. */
class ServeEndToEndTest {

    @AutoClose
    static final TestServer server = TestServer.serve(
            TestServer.model("tiny-qwen", SynthSpec.tiny("qwen")),
            "--alias demo --alias Other-Name -c 1024 -np 2 -t 2");

    static final Http http = server.http();

    @Test
    void healthIsOk() throws Exception {
        HttpResponse<String> r = http.get("/health");
        assertEquals(200, r.statusCode());
        assertEquals("ok", JSON.readTree(r.body()).get("status").asText());
    }

    @Test
    void listsTheModelByIdWithAliasesAndTemplate() throws Exception {
        JsonNode list = JSON.readTree(http.get("/v1/models").body());
        assertEquals("list", list.get("object").asText());
        JsonNode m = list.get("data").get(0);
        assertEquals("tiny-qwen", m.get("id").asText());
        assertEquals("[\"demo\",\"Other-Name\"]", m.get("aliases").toString());
        // Each alias is an id of its own too: editors' model pickers list ids only.
        List<String> ids = new ArrayList<>();
        list.get("data").forEach(d -> ids.add(d.get("id").asText()));
        assertEquals(List.of("tiny-qwen", "demo", "Other-Name"), ids);
        assertEquals("tiny-qwen", list.get("data").get(1).get("alias_of").asText());
        assertEquals(
                "demo",
                JSON.readTree(http.get("/v1/models/demo").body()).get("id").asText());
        // The synthetic model is a qwen2 GGUF: the Qwen family claims it from its metadata.
        assertEquals("qwen2.5", m.get("template").get("name").asText());
        assertTrue(m.get("loaded").asBoolean());
        assertEquals(200, http.get("/v1/models/demo").statusCode());
    }

    @Test
    void listsInstalledTemplatesWithTheirPlugins() throws Exception {
        JsonNode data = JSON.readTree(http.get("/v1/templates").body()).get("data");
        java.util.Map<String, String> modules = new java.util.HashMap<>();
        data.forEach(t -> modules.put(t.get("name").asText(), t.get("module").asText()));
        assertEquals("forge.template.qwen", modules.get("qwen3"));
        assertEquals("forge.template.generic", modules.get("generic"));
    }

    @Test
    void appliesATemplateWithoutGenerating() throws Exception {
        HttpResponse<String> r = http.post("/apply-template", """
                {"template": "qwen3", "add_generation_prompt": true, "chat_template_kwargs": {"enable_thinking": false},
                 "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": " there"}]}]}
                """);
        JsonNode body = ok(r);
        assertEquals("qwen3", body.get("template").asText());
        assertEquals("forge.template.qwen", body.get("plugin").asText());
        assertEquals("qwen", body.get("family").asText());
        // Qwen 3's template raises on a list of parts: it gets them joined with a newline, as llama-server joins them.
        assertEquals(
                "<|im_start|>user\nHi\n there<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
                body.get("prompt").asText());
        HttpResponse<String> byModel = http.post("/apply-template", """
                {"model": "demo", "add_generation_prompt": false, "messages": [{"role": "user", "content": "Hi"}]}
                """);
        assertEquals(200, byModel.statusCode(), byModel.body());
        assertEquals("qwen2.5", JSON.readTree(byModel.body()).get("template").asText());
        assertEquals(
                "forge.template.qwen",
                JSON.readTree(byModel.body()).get("plugin").asText(),
                "the model's own template's plugin");
        assertTrue(JSON.readTree(byModel.body()).get("prompt").asText().startsWith("<|im_start|>system\nYou are Qwen"));
        assertEquals(400, http.post("/apply-template", """
                {"template": "nope", "messages": [{"role": "user", "content": "Hi"}]}
                """).statusCode());
    }

    @Test
    void completesAChatByIdAndByAlias() throws Exception {
        for (String name : List.of("tiny-qwen", "demo", "other-name")) {
            HttpResponse<String> r = http.post("/v1/chat/completions", """
                    {"model": "%s", "max_tokens": 8, "temperature": 0, "ignore_eos": true,
                     "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": [{"type": "text", "text": "Hello"}]}]}
                    """.formatted(name));
            JsonNode body = ok(r);
            assertEquals("chat.completion", body.get("object").asText());
            assertTrue(body.get("id").asText().startsWith("chatcmpl-"));
            assertEquals("tiny-qwen", body.get("model").asText());
            JsonNode choice = body.get("choices").get(0);
            assertEquals("assistant", choice.get("message").get("role").asText());
            assertTrue(choice.get("message").get("content").isTextual());
            assertEquals("length", choice.get("finish_reason").asText());
            assertEquals(8, body.get("usage").get("completion_tokens").asInt());
            assertTrue(body.get("usage").get("prompt_tokens").asInt() > 5);
            assertEquals(
                    body.get("usage").get("prompt_tokens").asInt() + 8,
                    body.get("usage").get("total_tokens").asInt());
            assertNotNull(body.get("timings").get("predicted_per_second"));
        }
    }

    @Test
    void greedyCompletionIsDeterministicAndStreamingMatchesIt() throws Exception {
        String request = """
                {"model": "demo", "max_tokens": 12, "temperature": 0, "ignore_eos": true, %s
                 "messages": [{"role": "user", "content": "Write a haiku"}]}
                """;
        String whole = content(request.formatted(""));
        assertEquals(whole, content(request.formatted("")));

        HttpResponse<String> r = http.post(
                "/v1/chat/completions",
                request.formatted("\"stream\": true, \"stream_options\": {\"include_usage\": true},"));
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("content-type").orElse("").startsWith("text/event-stream"));
        List<String> events = new ArrayList<>();
        for (String block : r.body().split("\n\n")) {
            assertTrue(block.startsWith("data: "), "every event is a data line: " + block);
            events.add(block.substring("data: ".length()));
        }
        assertEquals("[DONE]", events.getLast());
        StringBuilder streamed = new StringBuilder();
        String finish = null;
        JsonNode usage = null;
        for (String e : events.subList(0, events.size() - 1)) {
            JsonNode chunk = JSON.readTree(e);
            assertEquals("chat.completion.chunk", chunk.get("object").asText());
            if (chunk.hasNonNull("usage")) {
                usage = chunk.get("usage");
                continue;
            }
            JsonNode choice = chunk.get("choices").get(0);
            if (choice.get("delta").has("content")) {
                streamed.append(choice.get("delta").get("content").asText());
            }
            if (!choice.get("finish_reason").isNull()) {
                finish = choice.get("finish_reason").asText();
            }
        }
        assertEquals(
                "assistant",
                JSON.readTree(events.getFirst())
                        .get("choices")
                        .get(0)
                        .get("delta")
                        .get("role")
                        .asText());
        assertEquals(whole, streamed.toString());
        assertEquals("length", finish);
        assertNotNull(usage, "include_usage sends a usage chunk");
        assertEquals(12, usage.get("completion_tokens").asInt());
    }

    @Test
    void unknownModelIs404InOpenAiShape() throws Exception {
        HttpResponse<String> r = http.post("/v1/chat/completions", """
                {"model": "no-such-model", "messages": [{"role": "user", "content": "hi"}]}""");
        assertEquals(404, r.statusCode());
        JsonNode error = JSON.readTree(r.body()).get("error");
        assertEquals("model_not_found", error.get("code").asText());
        assertTrue(error.get("message").asText().contains("no-such-model"));
        assertEquals("invalid_request_error", error.get("type").asText());
        assertTrue(error.has("param"));
    }

    /**
     * A server with one model answers requests that name none, as llama-server does (scripts
     * written for it often leave {@code model} out); a model that is not a string, {@code null}
     * included, is still refused.
     */
    @Test
    void theOnlyModelServesRequestsThatNameNone() throws Exception {
        String only = JSON.readTree(http.get("/v1/models").body())
                .get("data")
                .get(0)
                .get("id")
                .asText();
        JsonNode chat = ok(http.post("/v1/chat/completions", """
                {"max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}"""));
        assertEquals(only, chat.get("model").asText(), chat.toString());
        JsonNode completion = ok(http.post("/v1/completions", """
                {"max_tokens": 2, "prompt": "Once"}"""));
        assertEquals(only, completion.get("model").asText(), completion.toString());
        for (String model : new String[] {"3", "null", "\"\""}) {
            HttpResponse<String> r = http.post("/v1/chat/completions", """
                    {"model": %s, "messages": [{"role": "user", "content": "hi"}]}""".formatted(model));
            assertParam(r, "model", model);
        }
    }

    @Test
    void malformedJsonIs400InOpenAiShape() throws Exception {
        HttpResponse<String> r = http.post("/v1/chat/completions", "{\"model\": \"demo\", \"messages\": [");
        assertEquals(400, r.statusCode());
        JsonNode error = JSON.readTree(r.body()).get("error");
        assertEquals("invalid_request_error", error.get("type").asText());
        assertTrue(error.get("message").asText().startsWith("malformed JSON"), error.toString());
    }

    @Test
    void invalidParametersAre400NamingThem() throws Exception {
        HttpResponse<String> r = http.post("/v1/chat/completions", """
                {"model": "demo", "temperature": "hot", "messages": [{"role": "user", "content": "hi"}]}""");
        assertParam(r, "temperature");
        r = http.post("/v1/chat/completions", """
                {"model": "demo", "messages": [{"role": "wizard", "content": "hi"}]}""");
        assertParam(r, "messages[0].role");
    }

    @Test
    void aPromptBeyondTheContextIsRefusedBeforeGenerating() throws Exception {
        String longText = "word ".repeat(2000);
        HttpResponse<String> r = http.post("/v1/chat/completions", """
                {"model": "demo", "messages": [{"role": "user", "content": "%s"}]}""".formatted(longText));
        assertEquals(400, r.statusCode(), r.body());
        assertEquals(
                "context_length_exceeded",
                JSON.readTree(r.body()).get("error").get("code").asText());
        // The server is fine afterwards.
        assertEquals(200, http.post("/v1/chat/completions", """
                {"model": "demo", "max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}""").statusCode());
    }

    @Test
    void nullTemplateOptionsAreTreatedAsAbsent() throws Exception {
        HttpResponse<String> r = http.post("/v1/chat/completions", """
                {"model": "demo", "max_tokens": 2, "chat_template_kwargs": {"enable_thinking": null},
                 "messages": [{"role": "user", "content": "hi"}]}""");
        assertEquals(200, r.statusCode(), r.body());
    }

    @Test
    void unknownRoutesAre404() throws Exception {
        HttpResponse<String> r = http.get("/v2/nothing");
        assertEquals(404, r.statusCode());
        assertFalse(JSON.readTree(r.body()).get("error").get("message").asText().isEmpty());
    }

    @Test
    void demoModelIsGeneratedWhenNoModelIsFound(@TempDir Path work) throws Exception {
        Path folder = work.resolve("empty-models");
        Path demo = ModelOptions.demoModel(folder);
        assertEquals(folder.resolve("forge-demo.gguf"), demo);
        assertTrue(Files.size(demo) > 100_000);
        assertEquals(
                Files.getLastModifiedTime(demo),
                Files.getLastModifiedTime(ModelOptions.demoModel(folder)),
                "generated once");
    }

    @Test
    void healthSaysLoadingModelWhileTheStartUpLoadsRunAndTheServerAlreadyListens() throws Exception {
        var loads = new java.util.concurrent.CompletableFuture<Void>();
        try (forge.http.server.ForgeServer early = forge.http.server.ForgeServer.start(
                forge.http.server.ServerConfig.of("127.0.0.1", 0),
                server.running().catalog(),
                forge.runtime.plugin.SamplerStages.NONE,
                loads)) {
            Http http = new Http("http://127.0.0.1:" + early.port());
            HttpResponse<String> loading = http.get("/health");
            assertEquals(503, loading.statusCode(), loading.body());
            assertEquals(
                    "Loading model",
                    Http.json(loading).path("error").path("message").asText(),
                    "llama-server's answer");
            assertEquals("1", loading.headers().firstValue("Retry-After").orElse(""));
            assertEquals(
                    "{\"status\":\"loading\",\"error\":{\"code\":503,\"message\":\"Loading model\","
                            + "\"type\":\"unavailable_error\"}}",
                    loading.body(),
                    "llama-server's whole body");
            assertEquals(
                    "application/json",
                    loading.headers().firstValue("Content-Type").orElse(""));
            // The loading answer comes after the browser guard and CORS, as every answer does.
            HttpResponse<String> hostile = http.send(http.request("/health").header("Origin", "https://evil.example"));
            assertEquals(403, hostile.statusCode(), hostile.body());
            HttpResponse<String> local = http.send(http.request("/health").header("Origin", "http://localhost:3000"));
            assertEquals(503, local.statusCode(), local.body());
            assertEquals(
                    "http://localhost:3000",
                    local.headers().firstValue("Access-Control-Allow-Origin").orElse(""));
            // Only GET is answered early: another method gets the route table's answer.
            HttpResponse<String> post = http.post("/health", "{}");
            assertEquals(405, post.statusCode(), post.body());
            // Counted as every answer is, before the next request on the connection is read.
            String metrics = http.get("/metrics").body();
            assertTrue(
                    metrics.contains("forge_http_requests_total{route=\"/health\",status=\"503\"} 2.0"),
                    "each loading answer is counted: " + metrics);
            assertEquals(200, http.get("/v1/models").statusCode(), "the rest of the API answers meanwhile");
            loads.complete(null);
            assertEquals(200, http.get("/health").statusCode());
        }
    }

    /** The message content of the chat completion {@code request} answers. */
    private static String content(String request) throws Exception {
        return JSON.readTree(http.post("/v1/chat/completions", request).body())
                .get("choices")
                .get(0)
                .get("message")
                .get("content")
                .asText();
    }
}
