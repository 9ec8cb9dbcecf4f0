package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import forge.runtime.gguf.GgufValue;
import forge.runtime.synth.SynthSpec;
import forge.runtime.synth.SyntheticModels;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A model whose GGUF carries a Jinja chat template that no family claims (Phi-3.5's, behind a
 * guard that calls {@code raise_exception}) is served through the generic plugin's Jinjava path:
 * the real server renders the model's own template, and the template's error is a 400.
 */
class GenericJinjaEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A guard in the style of official templates, then Phi-3.5-mini-instruct's template as published. */
    private static final String GUARD = "{%- if messages[0]['role'] == 'assistant' %}"
            + "{{- raise_exception('Conversations must start with a user or system message.') }}{%- endif %}";

    @TempDir
    static Path work;

    static ServeCommand.Running server;
    static HttpClient client;
    static String base;

    @BeforeAll
    static void start() throws Exception {
        System.setProperty("forge.user.home", work.resolve("user-home").toString());
        String phi = Files.readString(Path.of("../templates/golden/sources/microsoft-Phi-3.5-mini-instruct.jinja"), StandardCharsets.UTF_8);
        Path model = work.resolve("tiny-phi.gguf");
        // A llama-architecture GGUF named like no family, with its own template.
        SyntheticModels.writer(SynthSpec.tiny("llama").withName("tiny-phi"))
                .put("tokenizer.chat_template", GgufValue.string(GUARD + phi))
                .write(model);
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("-m", model.toString(), "--port", "0", "-c", "512", "-np", "1", "-t", "2",
                "--plugins-dir", work.resolve("no-plugins").toString());
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
    void selectsTheGenericTemplate() throws Exception {
        JsonNode m = JSON.readTree(client.send(HttpRequest.newBuilder(URI.create(base + "/v1/models")).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body()).get("data").get(0);
        assertEquals("generic", m.get("template").get("name").asText(), m.toString());
    }

    @Test
    void appliesTheModelsOwnJinjaTemplate() throws Exception {
        HttpResponse<String> r = post("/apply-template", """
                {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
                              {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "Bye"}]}
                """);
        assertEquals(200, r.statusCode(), r.body());
        JsonNode body = JSON.readTree(r.body());
        assertEquals("generic", body.get("template").asText());
        assertEquals("<|system|>\nBe brief.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\nHello!<|end|>\n"
                + "<|user|>\nBye<|end|>\n<|assistant|>\n", body.get("prompt").asText());
    }

    @Test
    void theTemplatesRaiseExceptionIsABadRequestWithItsMessage() throws Exception {
        for (String path : new String[] {"/apply-template", "/v1/chat/completions"}) {
            HttpResponse<String> r = post(path, """
                    {"model": "tiny-phi", "max_tokens": 4, "messages": [{"role": "assistant", "content": "I speak first"}, {"role": "user", "content": "ok"}]}
                    """);
            assertEquals(400, r.statusCode(), r.body());
            assertEquals("Conversations must start with a user or system message.",
                    JSON.readTree(r.body()).get("error").get("message").asText(), path);
        }
    }

    @Test
    void generatesFromTheRenderedPrompt() throws Exception {
        HttpResponse<String> r = post("/v1/chat/completions", """
                {"model": "tiny-phi", "max_tokens": 4, "temperature": 0, "ignore_eos": true,
                 "messages": [{"role": "user", "content": "Hello"}]}
                """);
        assertEquals(200, r.statusCode(), r.body());
        JsonNode body = JSON.readTree(r.body());
        // <|user|>\nHello<|end|>\n<|assistant|>\n is more than a handful of tokens in any vocabulary
        assertTrue(body.get("usage").get("prompt_tokens").asInt() > 5, body.toString());
        assertEquals(4, body.get("usage").get("completion_tokens").asInt());
    }
}
