package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.assertParam;
import static forge.http.cli.Http.badRequest;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.lib.gguf.synth.SynthSpec;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /infill} on a real server: a tiny model with the {@code coder} family's vocabulary
 * (Qwen2.5-Coder's FIM, repo and file-separator tokens) beside one without FIM tokens.
 */
class InfillEndToEndTest {

    @AutoClose
    static TestServer server;

    static Http http;

    @BeforeAll
    static void start() {
        String fim = TestServer.model("tiny-coder", SynthSpec.tiny("coder")).toString();
        String plain = TestServer.model("tiny-plain", SynthSpec.tiny("qwen")).toString();
        server = TestServer.start("-m", fim, "-m", plain, "-c", "1024", "-np", "2", "-b", "128", "-t", "2");
        http = server.http();
    }

    static ObjectNode body() {
        ObjectNode b = JSON.createObjectNode()
                .put("model", "tiny-coder")
                .put("input_prefix", "def add(a, b):\n    return ")
                .put("input_suffix", "\n\nprint(add(1, 2))\n")
                .put("prompt", "a")
                .put("n_predict", 6)
                .put("temperature", 0);
        b.putArray("input_extra")
                .add(JSON.createObjectNode().put("filename", "util.py").put("text", "import os\n"))
                .add(JSON.createObjectNode().put("text", "x = 1\n"));
        return b;
    }

    static int count(String text) throws Exception {
        JsonNode r = ok(http.post(
                "/tokenize",
                JSON.writeValueAsString(Map.of("model", "tiny-coder", "content", text, "add_special", false))));
        return r.get("tokens").size();
    }

    @Test
    void thePromptIsLlamaServersRepositoryLevelLayout() throws Exception {
        JsonNode r = ok(http.post("/infill", body().toString()));
        // [REP]myproject\n [SEP]util.py\n import os\n [SEP]tmp\n x = 1\n [SEP]filename\n [PRE]prefix prompt [SUF]suffix
        // [MID]
        int expected = 1
                + count("myproject\n")
                + 1
                + count("util.py\n")
                + count("import os\n")
                + 1
                + count("tmp\n")
                + count("x = 1\n")
                + 1
                + count("filename\n")
                + 1
                + count("def add(a, b):\n    return ")
                + count("a")
                + 1
                + count("\n\nprint(add(1, 2))\n")
                + 1;
        assertEquals(expected, r.get("tokens_evaluated").asInt(), r.toString());
        assertTrue(r.get("content").isTextual());
        assertTrue(r.get("stop").asBoolean());
        assertEquals("tiny-coder", r.get("model").asText());
        assertTrue(r.get("tokens_predicted").asInt() <= 6);
        assertTrue(r.get("timings").has("prompt_n"), r.toString());
    }

    @Test
    void nPredictIsTheLimitAndTheSamePrefixIsReusedFromTheCache() throws Exception {
        ObjectNode b = body().put("ignore_eos", true).put("n_predict", 3);
        JsonNode first = ok(http.post("/infill", b.toString()));
        assertEquals(3, first.get("tokens_predicted").asInt(), first.toString());
        assertEquals("limit", first.get("stop_type").asText());
        JsonNode again = ok(http.post("/infill", b.toString()));
        // Greedy: the same completion; the prompt comes from the slot or the prompt cache, bar the last token.
        assertEquals(first.get("content"), again.get("content"));
        assertTrue(
                again.get("timings").get("cache_n").asInt()
                        >= first.get("tokens_evaluated").asInt() - 1,
                again.toString());
    }

    @Test
    void aStreamSendsLlamaServersPartialObjectsThenTheFinalOne() throws Exception {
        ObjectNode b = body().put("ignore_eos", true).put("n_predict", 4);
        JsonNode whole = ok(http.post("/infill", b.toString()));
        HttpResponse<String> r = http.post("/infill", b.put("stream", true).toString());
        assertEquals(200, r.statusCode(), r.body());
        List<JsonNode> events = new ArrayList<>();
        for (String block : r.body().split("\n\n")) {
            if (block.startsWith("data: ")) {
                events.add(JSON.readTree(block.substring("data: ".length())));
            }
        }
        assertFalse(r.body().contains("[DONE]"), "llama-server's own stream has no closing sentinel");
        StringBuilder text = new StringBuilder();
        for (JsonNode e : events.subList(0, events.size() - 1)) {
            assertFalse(e.get("stop").asBoolean(), e.toString());
            text.append(e.get("content").asText());
        }
        JsonNode last = events.getLast();
        assertTrue(last.get("stop").asBoolean(), last.toString());
        assertEquals("limit", last.get("stop_type").asText());
        assertEquals(whole.get("content").asText(), text.toString());
    }

    @Test
    void aCancelledRequestLeavesItsPrefixForTheNextKeystroke() throws Exception {
        ObjectNode b = body().put("ignore_eos", true).put("n_predict", 200).put("stream", true);
        b.put("input_prefix", "def cancelled(a, b):\n    return ");
        HttpResponse<InputStream> r = http.open("/infill", b.toString());
        try (InputStream in = r.body()) {
            // The first partial object: the prompt is computed and generation runs.
            byte[] head = new byte[6];
            assertEquals(6, in.readNBytes(head, 0, 6));
            assertEquals("data: ", new String(head, StandardCharsets.US_ASCII));
        }
        // The next keystroke: one character more of the same prefix.
        ObjectNode next = body().put("n_predict", 2);
        next.put("input_prefix", "def cancelled(a, b):\n    return a");
        JsonNode again = ok(http.post("/infill", next.toString()));
        // Everything before the prefix (the extra chunks and FIM_PRE) is shared with the other
        // tests' prompts; the cancelled request's own prefix is not: only its kept cells give it.
        int beforePrefix = again.get("tokens_evaluated").asInt()
                - (count("def cancelled(a, b):\n    return a") + count("a") + 1 + count("\n\nprint(add(1, 2))\n") + 1);
        assertTrue(
                again.get("timings").get("cache_n").asInt() >= beforePrefix + count("def cancelled(a, b):"),
                again.toString());
    }

    @Test
    void aModelWithoutFimTokensIsRefused() throws Exception {
        HttpResponse<String> r =
                http.post("/infill", body().put("model", "tiny-plain").toString());
        assertTrue(badRequest(r).get("message").asText().contains("fill-in-the-middle"), r.body());
    }

    @Test
    void badInputIsA400NamingTheField() throws Exception {
        ObjectNode noSuffix = body();
        noSuffix.remove("input_suffix");
        assertParam(http.post("/infill", noSuffix.toString()), "input_suffix");
        assertParam(http.post("/infill", body().put("input_extra", "x").toString()), "input_extra");
        ObjectNode noText = body();
        noText.putArray("input_extra").add(JSON.createObjectNode().put("filename", "a.py"));
        assertParam(http.post("/infill", noText.toString()), "input_extra[0].text");
        assertParam(http.post("/infill", body().put("n_predict", 0).toString()), "n_predict");
        assertParam(http.post("/infill", body().put("prompt", 3).toString()), "prompt");
    }

    @Test
    void fieldsWithoutEffectAreNamed() throws Exception {
        HttpResponse<String> r =
                http.post("/infill", body().put("t_max_prompt_ms", 500).toString());
        ok(r);
        assertTrue(
                r.headers().firstValue("X-Forge-Ignored-Params").orElse("").contains("t_max_prompt_ms"),
                r.headers().map().toString());
    }

    @Test
    void infillRequestsAndTheirGenerationsAreCounted() throws Exception {
        ok(http.post("/infill", body().toString()));
        String metrics = http.get("/metrics").body();
        assertTrue(metrics.contains("forge_http_requests_total{route=\"/infill\",status=\"200\"}"), metrics);
        assertTrue(metrics.contains("forge_time_to_first_token_seconds_count{model=\"tiny-coder\"}"), metrics);
    }
}
