package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A model whose GGUF carries a Jinja chat template that no family claims (Phi-3.5's, behind a
 * guard that calls {@code raise_exception}) is served through the generic plugin's Jinja path (forge.template.jinja):
 * the real server renders the model's own template, and the template's error is a 400.
 */
class GenericJinjaEndToEndTest {

    /** A guard in the style of official templates, then Phi-3.5-mini-instruct's template as published. */
    private static final String GUARD = "{%- if messages[0]['role'] == 'assistant' %}"
            + "{{- raise_exception('Conversations must start with a user or system message.') }}{%- endif %}";

    @AutoClose
    static TestServer server;

    static Http http;

    @BeforeAll
    static void start() throws Exception {
        String phi = Files.readString(
                Path.of("../templates/golden/sources/microsoft-Phi-3.5-mini-instruct.jinja"), StandardCharsets.UTF_8);
        // A llama-architecture GGUF named like no family, with its own template.
        Path model = TestServer.modelWithTemplate("tiny-phi", GUARD + phi);
        server = TestServer.serve(model, "-c 512 -np 1 -t 2");
        http = server.http();
    }

    @Test
    void selectsTheGenericTemplate() throws Exception {
        JsonNode m = JSON.readTree(http.get("/v1/models").body()).get("data").get(0);
        assertEquals("generic", m.get("template").get("name").asText(), m.toString());
    }

    @Test
    void appliesTheModelsOwnJinjaTemplate() throws Exception {
        HttpResponse<String> r = http.post("/apply-template", """
                {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
                              {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "Bye"}]}
                """);
        JsonNode body = ok(r);
        assertEquals("generic", body.get("template").asText());
        assertEquals(
                "<|system|>\nBe brief.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\nHello!<|end|>\n"
                        + "<|user|>\nBye<|end|>\n<|assistant|>\n",
                body.get("prompt").asText());
    }

    @Test
    void theTemplatesRaiseExceptionIsABadRequestWithItsMessage() throws Exception {
        for (String path : new String[] {"/apply-template", "/v1/chat/completions"}) {
            HttpResponse<String> r = http.post(path, """
                    {"model": "tiny-phi", "max_tokens": 4, "messages": [{"role": "assistant", "content": "I speak first"}, {"role": "user", "content": "ok"}]}
                    """);
            assertEquals(400, r.statusCode(), r.body());
            assertEquals(
                    "Conversations must start with a user or system message.",
                    JSON.readTree(r.body()).get("error").get("message").asText(),
                    path);
        }
    }

    @Test
    void generatesFromTheRenderedPrompt() throws Exception {
        JsonNode body = ok(http.post("/v1/chat/completions", """
                {"model": "tiny-phi", "max_tokens": 4, "temperature": 0, "ignore_eos": true,
                 "messages": [{"role": "user", "content": "Hello"}]}
                """));
        // <|user|>\nHello<|end|>\n<|assistant|>\n is more than a handful of tokens in any vocabulary
        assertTrue(body.get("usage").get("prompt_tokens").asInt() > 5, body.toString());
        assertEquals(4, body.get("usage").get("completion_tokens").asInt());
    }
}
