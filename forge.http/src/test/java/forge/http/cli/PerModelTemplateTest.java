package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.ForgeException;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code --template MODEL=NAME}: a chat template configured for one model of several. */
class PerModelTemplateTest {

    @Test
    void oneModelGetsItsConfiguredTemplateAndTheOtherKeepsItsClaim() throws Exception {
        try (TestServer server = TestServer.serve(
                TestServer.model("tiny-qwen", SynthSpec.tiny("qwen")),
                "--template TINY-LLAMA=generic -c 1024 -np 1 -t 2",
                "-m",
                TestServer.model("tiny-llama", SynthSpec.tiny("llama")).toString())) {
            HttpResponse<String> r = server.http().get("/v1/models");
            Map<String, JsonNode> templates = new HashMap<>();
            JSON.readTree(r.body())
                    .get("data")
                    .forEach(m -> templates.put(m.get("id").asText(), m.get("template")));
            assertEquals("generic", templates.get("tiny-llama").get("name").asText(), r.body());
            assertEquals("configured", templates.get("tiny-llama").get("rule").asText());
            assertEquals("qwen2.5", templates.get("tiny-qwen").get("name").asText(), r.body());
            assertEquals("metadata", templates.get("tiny-qwen").get("rule").asText());

            // With two models a request must say which one.
            HttpResponse<String> unnamed = server.http().post("/v1/chat/completions", """
                    {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}""");
            assertEquals(400, unnamed.statusCode(), unnamed.body());
            JsonNode error = JSON.readTree(unnamed.body()).get("error");
            assertEquals("model", error.get("param").asText());
            assertTrue(
                    error.get("message").asText().contains("tiny-qwen")
                            && error.get("message").asText().contains("tiny-llama"),
                    unnamed.body());
        }
    }

    @Test
    void aTemplateForAModelThatIsNotServedIsAnError() {
        String qwen = TestServer.model("tiny-qwen", SynthSpec.tiny("qwen")).toString();
        ForgeException e =
                assertThrows(ForgeException.class, () -> TestServer.start("-m", qwen, "--template", "nobody=generic"));
        assertTrue(e.getMessage().contains("no model answers to 'nobody'"), e.getMessage());
    }
}
