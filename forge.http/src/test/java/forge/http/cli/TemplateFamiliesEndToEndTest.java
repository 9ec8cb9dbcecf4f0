package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The Llama and Gemma template plugins in the real server: synthetic models of those families are
 * claimed by them from their GGUF metadata, {@code /apply-template} renders with them, and a chat
 * completion runs through them.
 */
class TemplateFamiliesEndToEndTest {

    @AutoClose
    static final TestServer server = TestServer.serve(
            TestServer.model("tiny-llama", SynthSpec.tiny("llama")),
            "-c 512 -np 1 -t 2",
            "-m",
            TestServer.model("tiny-gemma", SynthSpec.tiny("gemma")).toString());

    static final Http http = server.http();

    @Test
    void synthesizedLlamaAndGemmaModelsAreClaimedByTheirFamilies() throws Exception {
        JsonNode data = JSON.readTree(http.get("/v1/models").body()).get("data");
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
        HttpResponse<String> llama = http.post("/apply-template", """
                {"model": "tiny-llama", "chat_template_kwargs": {"date_string": "05 Mar 2025"},
                 "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": [{"type": "text", "text": "Hi"}]}]}
                """);
        assertEquals(200, llama.statusCode(), llama.body());
        assertEquals("llama3.1", JSON.readTree(llama.body()).get("template").asText());
        assertEquals(
                llama31Prompt("Hi"), JSON.readTree(llama.body()).get("prompt").asText());
        // Llama 3.1's official template prints a list of parts as its repr and does not name the developer
        // role: the parts reach it joined as llama-server joins them, the developer message as the system one.
        HttpResponse<String> parts = http.post("/apply-template", """
                {"model": "tiny-llama", "chat_template_kwargs": {"date_string": "05 Mar 2025"},
                 "messages": [{"role": "developer", "content": "Be brief."},
                              {"role": "user", "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": "there"}]}]}
                """);
        assertEquals(200, parts.statusCode(), parts.body());
        assertEquals(
                llama31Prompt("Hi\nthere"),
                JSON.readTree(parts.body()).get("prompt").asText());
        HttpResponse<String> gemma = http.post("/apply-template", """
                {"model": "tiny-gemma", "messages": [{"role": "user", "content": "Hi"}]}
                """);
        assertEquals(200, gemma.statusCode(), gemma.body());
        assertEquals(
                "<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n",
                JSON.readTree(gemma.body()).get("prompt").asText());
        HttpResponse<String> gemma4 = http.post("/apply-template", """
                {"template": "gemma4", "messages": [{"role": "user", "content": "Hi"}]}
                """);
        assertEquals(
                "<bos><|turn>user\nHi<turn|>\n<|turn>model\n<|channel>thought\n<channel|>",
                JSON.readTree(gemma4.body()).get("prompt").asText());
    }

    /**
     * Llama 3.1's official template's prompt for the system message "Be brief." and {@code user},
     * on 05 Mar 2025, up to the assistant's header.
     */
    private static String llama31Prompt(String user) {
        return "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\n"
                + "Today Date: 05 Mar 2025\n\nBe brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n" + user
                + "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n";
    }

    @Test
    void gemmaRefusesASystemTurnWith400AndTheTemplatesReason() throws Exception {
        for (String path : new String[] {"/apply-template", "/v1/chat/completions"}) {
            HttpResponse<String> r = http.post(path, """
                    {"model": "tiny-gemma", "max_tokens": 2,
                     "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]}
                    """);
            assertEquals(400, r.statusCode(), path + ": " + r.body());
            assertEquals(
                    "System role not supported",
                    JSON.readTree(r.body()).get("error").get("message").asText(),
                    r.body());
        }
    }

    @Test
    void completesAChatThroughTheLlamaTemplate() throws Exception {
        HttpResponse<String> r = http.post("/v1/chat/completions", """
                {"model": "tiny-llama", "max_tokens": 4, "temperature": 0, "ignore_eos": true,
                 "messages": [{"role": "user", "content": "Hello"}]}
                """);
        JsonNode body = ok(r);
        // ignore_eos: the template's end-of-turn texts stop nothing here, so all four tokens come.
        assertEquals(4, body.get("usage").get("completion_tokens").asInt(), r.body());
        assertEquals("length", body.get("choices").get(0).get("finish_reason").asText(), r.body());
    }
}
