package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Bodies that were answered with 200 although their API's types refuse them: each is a 400 in
 * OpenAI's shape naming the parameter, on the route it was sent to, and the server serves on.
 */
class HostileInputTest {

    @AutoClose
    static final TestServer server =
            TestServer.serve(TestServer.model("tiny-qwen", SynthSpec.tiny("qwen")), "--alias demo -c 1024 -np 2 -t 2");

    static final Http http = server.http();

    private static final String HI = "[{\"role\": \"user\", \"content\": \"hi\"}]";
    private static final String TOOL = "{\"type\": \"function\", \"function\": {\"name\": \"%s\", \"parameters\": %s}}";

    /** Chat bodies and the parameter each must be refused for. */
    static Map<String, String> chat() {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("{\"model\": \"demo\", \"messages\": " + HI + ", \"seed\": 18446744073709551621}", "seed");
        cases.put("{\"model\": \"demo\", \"messages\": " + HI + ", \"max_tokens\": 9223372036854775808}", "max_tokens");
        cases.put("{\"model\": \"demo\", \"messages\": " + HI + ", \"max_tokens\": 4294967298}", "max_tokens");
        cases.put(
                "{\"model\": \"demo\", \"messages\": " + HI + ", \"tools\": [" + TOOL.formatted("get weather", "{}")
                        + "]}",
                "tools[0].function.name");
        cases.put(
                "{\"model\": \"demo\", \"messages\": " + HI + ", \"tools\": [" + TOOL.formatted("x".repeat(65), "{}")
                        + "]}",
                "tools[0].function.name");
        cases.put(
                "{\"model\": \"demo\", \"messages\": " + HI + ", \"tools\": [" + TOOL.formatted("f", "\"a string\"")
                        + "]}",
                "tools[0].function.parameters");
        cases.put(
                "{\"model\": \"demo\", \"messages\": " + HI + ", \"tools\": ["
                        + TOOL.formatted("f", "{\"type\": \"string\"}") + "]}",
                "tools[0].function.parameters");
        cases.put(
                "{\"model\": \"demo\", \"messages\": " + HI + ", \"tools\": ["
                        + TOOL.formatted("f", "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"strng\"}}}")
                        + "]}",
                "tools[0].function.parameters");
        cases.put(
                "{\"model\": \"demo\", \"messages\": " + HI + ", \"tools\": [{\"type\": \"web_search\"}]}",
                "tools[0].type");
        cases.put(
                "{\"model\": \"demo\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}, {\"role\": \"assistant\", \"content\": null,"
                        + " \"tool_calls\": [{\"id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": \"{}\"}}]},"
                        + " {\"role\": \"tool\", \"content\": \"42\"}]}",
                "messages[2].tool_call_id");
        cases.put("{\"model\": null, \"messages\": " + HI + "}", "model");
        cases.put("{\"model\": \"demo\", \"messages\": " + HI + ", \"user\": 17}", "user");
        cases.put(
                "{\"model\": \"demo\", \"messages\": " + HI + ", \"stream_options\": {\"include_usage\": \"yes\"}}",
                "stream_options.include_usage");
        return cases;
    }

    @Test
    void chatBodiesOutsideTheirTypesAre400NamingTheParameter() throws Exception {
        for (var c : chat().entrySet()) {
            HttpResponse<String> r = http.post("/v1/chat/completions", c.getKey());
            assertEquals(400, r.statusCode(), c.getKey() + " -> " + r.body());
            JsonNode error = JSON.readTree(r.body()).get("error");
            assertEquals(c.getValue(), error.get("param").asText(), c.getKey() + " -> " + r.body());
            assertEquals("invalid_request_error", error.get("type").asText());
        }
        ok(http.post("/v1/chat/completions", "{\"model\": \"demo\", \"max_tokens\": 2, \"messages\": " + HI + "}"));
    }

    @Test
    void completionsAndEmbeddingsShareTheValidator() throws Exception {
        assertEquals(
                "seed",
                error("/v1/completions", "{\"prompt\": \"a\", \"seed\": 1e400}")
                        .get("param")
                        .asText(""));
        assertEquals(
                "seed",
                error("/v1/completions", "{\"prompt\": \"a\", \"seed\": 18446744073709551621}")
                        .get("param")
                        .asText());
        assertEquals(
                "user",
                error("/v1/completions", "{\"prompt\": \"a\", \"user\": []}")
                        .get("param")
                        .asText());
        assertEquals(
                "user",
                error("/v1/embeddings", "{\"input\": \"a\", \"user\": false}")
                        .get("param")
                        .asText());
        assertEquals(
                "model",
                error("/v1/embeddings", "{\"model\": null, \"input\": \"a\"}")
                        .get("param")
                        .asText());
        // A grammar constrains completions too (it was parsed and dropped).
        JsonNode c = ok(http.post(
                "/v1/completions", "{\"prompt\": \"a\", \"max_tokens\": 6, \"grammar\": \"root ::= [0-9]+\"}"));
        assertTrue(c.get("choices").get(0).get("text").asText().matches("[0-9]*"), c.toString());
    }

    private static JsonNode error(String path, String body) throws Exception {
        HttpResponse<String> r = http.post(path, body);
        assertEquals(400, r.statusCode(), body + " -> " + r.body());
        return JSON.readTree(r.body()).get("error");
    }

    @Test
    void strictJsonAndStrictUtf8() throws Exception {
        String good = "{\"model\": \"demo\", \"max_tokens\": 2, \"messages\": " + HI + "}";
        for (String body : new String[] {good + "garbage", good + " " + good}) {
            JsonNode e = error("/v1/chat/completions", body);
            assertTrue(e.get("message").asText().startsWith("malformed JSON"), e.toString());
            assertFalse(e.get("message").asText().contains("com.fasterxml"), e.toString());
        }
        byte[] utf8 = good.replace("hi", "h\u00e9").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int at = new String(utf8, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf('h') + 1;
        byte[] overlong = java.util.Arrays.copyOf(utf8, utf8.length);
        overlong[at] = (byte) 0xC0; // C0 A9: an overlong form
        for (byte[] body : new byte[][] {overlong, good.getBytes(java.nio.charset.StandardCharsets.UTF_16)}) {
            HttpResponse<String> r = http.send(http.request("/v1/chat/completions")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
            assertEquals(400, r.statusCode(), r.body());
            assertTrue(r.body().contains("not valid UTF-8"), r.body());
        }
        JsonNode lone = error("/v1/chat/completions", good.replace("hi", "h\\ud800i"));
        assertTrue(lone.get("message").asText().contains("messages[0].content"), lone.toString());
        ok(http.post("/v1/chat/completions", good));
    }

    /** What Jetty itself refuses (a header block over its limit, a request line it cannot read) is JSON too. */
    @Test
    void errorsJettyAnswersItselfAreJsonNotHtml() throws Exception {
        String host = "127.0.0.1:" + java.net.URI.create(http.base()).getPort();
        String big = http.raw("GET /health", host, java.util.List.of("X-Big: " + "a".repeat(20_000)), "");
        assertTrue(big.startsWith("HTTP/1.1 431"), big);
        assertTrue(big.contains("\"error\":{") && !big.contains("<html"), big);
        String badUri = http.raw("GET /v1/%zz", host, java.util.List.of(), "");
        assertTrue(badUri.startsWith("HTTP/1.1 400"), badUri);
        assertTrue(
                badUri.contains("\"error\":{")
                        && !badUri.toLowerCase(java.util.Locale.ROOT).contains("<html"),
                badUri);
        assertEquals(200, http.get("/health").statusCode());
    }
}
