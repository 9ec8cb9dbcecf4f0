package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import forge.runtime.synth.SynthSpec;
import forge.runtime.synth.SyntheticModels;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The Llama and Gemma template plugins in the real server: synthetic models of those families are
 * claimed by them from their GGUF metadata, {@code /apply-template} renders with them, and a chat
 * completion runs through them.
 */
class TemplateFamiliesEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path work;

    static ServeCommand.Running server;
    static HttpClient client;
    static String base;

    @BeforeAll
    static void start() throws Exception {
        System.setProperty("forge.user.home", work.resolve("user-home").toString());
        Path llama = work.resolve("tiny-llama.gguf");
        Path gemma = work.resolve("tiny-gemma.gguf");
        SyntheticModels.write(SynthSpec.tiny("llama"), llama);
        SyntheticModels.write(SynthSpec.tiny("gemma"), gemma);
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("-m", llama.toString(), "-m", gemma.toString(), "--port", "0", "-c", "512", "-np", "1",
                "-t", "2", "--plugins-dir", work.resolve("no-plugins").toString());
        server = serve.start();
        client = HttpClient.newHttpClient();
        base = "http://127.0.0.1:" + server.port();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    static HttpResponse<String> post(String path, String body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void synthesizedLlamaAndGemmaModelsAreClaimedByTheirFamilies() throws Exception {
        JsonNode data = JSON.readTree(client.send(HttpRequest.newBuilder(URI.create(base + "/v1/models")).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body()).get("data");
        Map<String, JsonNode> templates = new HashMap<>();
        data.forEach(m -> templates.put(m.get("id").asText(), m.get("template")));
        // The synthetic Llama carries the official Llama 3.1 template: claimed by its fingerprint.
        assertEquals("llama3.1", templates.get("tiny-llama").get("name").asText(), templates.toString());
        assertEquals("llama", templates.get("tiny-llama").get("family").asText());
        assertEquals("metadata", templates.get("tiny-llama").get("rule").asText());
        // The synthetic Gemma is a llama-architecture GGUF too: its <start_of_turn> template gives it away.
        assertEquals("gemma2", templates.get("tiny-gemma").get("name").asText(), templates.toString());
        assertEquals("gemma", templates.get("tiny-gemma").get("family").asText());
    }

    @Test
    void appliesTheClaimedTemplates() throws Exception {
        HttpResponse<String> llama = post("/apply-template", """
                {"model": "tiny-llama", "chat_template_kwargs": {"date_string": "05 Mar 2025"},
                 "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": [{"type": "text", "text": "Hi"}]}]}
                """);
        assertEquals(200, llama.statusCode(), llama.body());
        assertEquals("llama3.1", JSON.readTree(llama.body()).get("template").asText());
        assertEquals("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\n"
                + "Today Date: 05 Mar 2025\n\nBe brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
                + "<|start_header_id|>assistant<|end_header_id|>\n\n", JSON.readTree(llama.body()).get("prompt").asText());
        HttpResponse<String> gemma = post("/apply-template", """
                {"model": "tiny-gemma", "messages": [{"role": "user", "content": "Hi"}]}
                """);
        assertEquals(200, gemma.statusCode(), gemma.body());
        assertEquals("<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n", JSON.readTree(gemma.body()).get("prompt").asText());
        HttpResponse<String> gemma4 = post("/apply-template", """
                {"template": "gemma4", "messages": [{"role": "user", "content": "Hi"}]}
                """);
        assertEquals("<bos><|turn>user\nHi<turn|>\n<|turn>model\n<|channel>thought\n<channel|>", JSON.readTree(gemma4.body()).get("prompt").asText());
    }

    @Test
    void gemmaRefusesASystemTurnWith400AndTheTemplatesReason() throws Exception {
        for (String path : new String[] {"/apply-template", "/v1/chat/completions"}) {
            HttpResponse<String> r = post(path, """
                    {"model": "tiny-gemma", "max_tokens": 2,
                     "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]}
                    """);
            assertEquals(400, r.statusCode(), path + ": " + r.body());
            assertEquals("System role not supported", JSON.readTree(r.body()).get("error").get("message").asText(), r.body());
        }
    }

    @Test
    void completesAChatThroughTheLlamaTemplate() throws Exception {
        HttpResponse<String> r = post("/v1/chat/completions", """
                {"model": "tiny-llama", "max_tokens": 4, "temperature": 0, "ignore_eos": true,
                 "messages": [{"role": "user", "content": "Hello"}]}
                """);
        assertEquals(200, r.statusCode(), r.body());
        JsonNode body = JSON.readTree(r.body());
        // ignore_eos: the template's end-of-turn texts stop nothing here, so all four tokens come.
        assertEquals(4, body.get("usage").get("completion_tokens").asInt(), r.body());
        assertEquals("length", body.get("choices").get(0).get("finish_reason").asText(), r.body());
    }
}
