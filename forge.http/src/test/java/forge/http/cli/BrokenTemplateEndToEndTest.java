package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code forge serve} with a model whose own chat template does not parse beside a good one: the
 * server starts, lists the broken model with the template's error, answers its requests with a 400
 * that quotes the error and its line, and serves the good model as usual.
 */
class BrokenTemplateEndToEndTest {

    private static final String REASON = "the model's chat template does not parse: line 2: Unexpected end of template."
            + " Jinja was looking for the following tags: 'else' or 'endfor'.";

    @AutoClose
    static TestServer server;

    static Http http;

    @BeforeAll
    static void start() throws Exception {
        Path broken =
                TestServer.modelWithTemplate("tiny-broken", "{{ bos_token }}\n{% for m in messages %}{{ m.content }}");
        Path good = TestServer.modelWithTemplate(
                "tiny-good", "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}");
        server = TestServer.serve(broken, "-c 512 -np 1 -t 2", "-m", good.toString());
        http = server.http();
    }

    @Test
    void theBrokenModelIsListedWithTheTemplatesError() throws Exception {
        JsonNode data = JSON.readTree(http.get("/v1/models").body()).get("data");
        assertEquals("tiny-broken", data.get(0).get("id").asText());
        assertEquals(REASON, data.get(0).get("template").get("error").asText(), data.toString());
        assertFalse(data.get(1).get("template").has("error"), data.toString());
    }

    @Test
    void itsRequestsAreABadRequestWithTheErrorAndLine() throws Exception {
        for (String path : new String[] {"/apply-template", "/v1/chat/completions"}) {
            HttpResponse<String> r = http.post(path, """
                    {"model": "tiny-broken", "max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}
                    """);
            assertEquals(400, r.statusCode(), r.body());
            assertEquals(
                    REASON, JSON.readTree(r.body()).get("error").get("message").asText(), path);
        }
    }

    @Test
    void theOtherModelIsServed() throws Exception {
        JsonNode body = ok(http.post("/apply-template", """
                {"model": "tiny-good", "messages": [{"role": "user", "content": "hi"}]}
                """));
        assertEquals("[user]hi", body.get("prompt").asText());
        ok(http.post("/v1/chat/completions", """
                {"model": "tiny-good", "max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}
                """));
    }
}
