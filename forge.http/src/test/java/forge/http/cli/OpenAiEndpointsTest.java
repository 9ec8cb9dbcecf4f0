package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.assertParam;
import static forge.http.cli.Http.events;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The OpenAI endpoints besides single-choice chat, over HTTP against the real server, and bad input. */
class OpenAiEndpointsTest {

    static Path model;

    @AutoClose
    static TestServer server;

    static Http http;

    @BeforeAll
    static void start() {
        model = TestServer.model("tiny", SynthSpec.tiny("qwen"));
        server = TestServer.serve(model, "-c 1024 -np 4 -t 2");
        http = server.http();
    }

    @Test
    void severalChoicesAreEachCompleteWithSummedUsage() throws Exception {
        JsonNode body = ok(http.post("/v1/chat/completions", """
                {"model": "tiny", "n": 3, "max_tokens": 5, "ignore_eos": true, "temperature": 1, "seed": 7,
                 "messages": [{"role": "user", "content": "hi"}]}"""));
        JsonNode choices = body.get("choices");
        assertEquals(3, choices.size());
        Set<String> texts = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            assertEquals(i, choices.get(i).get("index").asInt());
            assertEquals("length", choices.get(i).get("finish_reason").asText());
            texts.add(choices.get(i).get("message").get("content").asText());
        }
        assertTrue(texts.size() > 1, "seeded choices differ from each other: " + texts);
        assertEquals(15, body.get("usage").get("completion_tokens").asInt());
        int prompt = body.get("usage").get("prompt_tokens").asInt();
        assertEquals(prompt + 15, body.get("usage").get("total_tokens").asInt());

        List<JsonNode> chunks = events(http.post("/v1/chat/completions", """
                {"model": "tiny", "n": 2, "max_tokens": 4, "ignore_eos": true, "stream": true, "stream_options": {"include_usage": true},
                 "messages": [{"role": "user", "content": "hi"}]}"""));
        int[] finishes = new int[2];
        int[] roles = new int[2];
        for (JsonNode c : chunks) {
            for (JsonNode choice : c.get("choices")) {
                int index = choice.get("index").asInt();
                if (choice.get("delta").has("role")) {
                    roles[index]++;
                }
                if (!choice.get("finish_reason").isNull()) {
                    finishes[index]++;
                }
            }
        }
        assertArrayEquals(new int[] {1, 1}, roles);
        assertArrayEquals(new int[] {1, 1}, finishes);
        assertEquals(8, chunks.getLast().get("usage").get("completion_tokens").asInt());
    }

    @Test
    void completionsTakeStringsListsTokensAndEcho() throws Exception {
        JsonNode one = ok(http.post("/v1/completions", """
                {"model": "tiny", "prompt": "Once upon a time", "max_tokens": 4, "ignore_eos": true, "temperature": 0}"""));
        assertEquals("text_completion", one.get("object").asText());
        assertTrue(one.get("id").asText().startsWith("cmpl-"));
        assertEquals(1, one.get("choices").size());
        assertEquals("length", one.get("choices").get(0).get("finish_reason").asText());
        assertEquals(4, one.get("usage").get("completion_tokens").asInt());
        String text = one.get("choices").get(0).get("text").asText();

        JsonNode echoed = ok(http.post("/v1/completions", """
                {"model": "tiny", "prompt": "Once upon a time", "max_tokens": 4, "ignore_eos": true, "temperature": 0, "echo": true}"""));
        assertEquals(
                "Once upon a time" + text,
                echoed.get("choices").get(0).get("text").asText());

        JsonNode many = ok(http.post("/v1/completions", """
                {"model": "tiny", "prompt": ["a b c", "d e f"], "n": 2, "max_tokens": 3, "ignore_eos": true}"""));
        assertEquals(4, many.get("choices").size());
        assertEquals(12, many.get("usage").get("completion_tokens").asInt());

        JsonNode tokens = ok(http.post("/tokenize", """
                {"content": "Once upon a time"}"""));
        JsonNode byIds = ok(http.post("/v1/completions", """
                {"model": "tiny", "prompt": %s, "max_tokens": 4, "ignore_eos": true, "temperature": 0}""".formatted(tokens.get("tokens"))));
        assertEquals(4, byIds.get("usage").get("completion_tokens").asInt());

        List<JsonNode> chunks = events(http.post("/v1/completions", """
                {"model": "tiny", "prompt": "Once upon a time", "max_tokens": 4, "ignore_eos": true, "temperature": 0, "stream": true}"""));
        StringBuilder streamed = new StringBuilder();
        chunks.forEach(c -> streamed.append(c.get("choices").get(0).get("text").asText()));
        assertEquals(text, streamed.toString());
        assertEquals(
                "length",
                chunks.getLast().get("choices").get(0).get("finish_reason").asText());
    }

    @Test
    void chatLogprobsCarryEveryTokenWithItsAlternatives() throws Exception {
        HttpResponse<String> r = http.post("/v1/chat/completions", """
                {"model": "tiny", "max_tokens": 6, "ignore_eos": true, "temperature": 0, "logprobs": true, "top_logprobs": 3,
                 "messages": [{"role": "user", "content": "hi"}]}""");
        assertTrue(r.headers().firstValue("X-Forge-Ignored-Params").isEmpty(), "logprobs is honoured, not ignored");
        JsonNode choice = ok(r).get("choices").get(0);
        JsonNode content = choice.get("logprobs").get("content");
        assertEquals(6, content.size());
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        for (JsonNode t : content) {
            assertTrue(t.get("logprob").asDouble() <= 0);
            assertEquals(3, t.get("top_logprobs").size());
            JsonNode best = t.get("top_logprobs").get(0);
            // temperature 0: the chosen token is the most likely one.
            assertEquals(best.get("token").asText(), t.get("token").asText());
            assertEquals(best.get("logprob").asDouble(), t.get("logprob").asDouble(), 1e-6);
            assertTrue(best.get("logprob").asDouble()
                    >= t.get("top_logprobs").get(2).get("logprob").asDouble());
            t.get("bytes").forEach(b -> bytes.write(b.asInt()));
        }
        assertEquals(
                choice.get("message").get("content").asText(), bytes.toString(java.nio.charset.StandardCharsets.UTF_8));

        JsonNode plain = ok(http.post("/v1/chat/completions", """
                {"model": "tiny", "max_tokens": 2, "messages": [{"role": "user", "content": "hi"}]}"""));
        assertTrue(plain.get("choices").get(0).get("logprobs").isNull());

        List<JsonNode> chunks = events(http.post("/v1/chat/completions", """
                {"model": "tiny", "max_tokens": 6, "ignore_eos": true, "temperature": 0, "logprobs": true, "stream": true,
                 "messages": [{"role": "user", "content": "hi"}]}"""));
        List<JsonNode> streamed = new ArrayList<>();
        for (JsonNode c : chunks.subList(1, chunks.size())) {
            c.get("choices").get(0).get("logprobs").get("content").forEach(streamed::add);
        }
        assertEquals(6, streamed.size(), "every token once, across the chunks");
        for (int i = 0; i < 6; i++) {
            assertEquals(content.get(i).get("token"), streamed.get(i).get("token"));
            assertEquals(0, streamed.get(i).get("top_logprobs").size(), "top_logprobs defaults to 0");
        }

        for (String bad : List.of(
                "\"top_logprobs\": 21, \"logprobs\": true",
                "\"top_logprobs\": -1, \"logprobs\": true",
                "\"top_logprobs\": 2",
                "\"top_logprobs\": 2, \"logprobs\": false")) {
            HttpResponse<String> e = http.post("/v1/chat/completions", """
                    {"model": "tiny", %s, "messages": [{"role": "user", "content": "hi"}]}""".formatted(bad));
            assertParam(e, "top_logprobs", bad);
        }
        HttpResponse<String> e = http.post("/v1/chat/completions", """
                {"model": "tiny", "logprobs": 3, "messages": [{"role": "user", "content": "hi"}]}""");
        assertParam(e, "logprobs");
    }

    @Test
    void completionLogprobsUseTheLegacyShape() throws Exception {
        JsonNode plain = ok(http.post("/v1/completions", """
                {"model": "tiny", "prompt": "Once upon a time", "max_tokens": 5, "ignore_eos": true, "temperature": 0,
                 "logprobs": 2}"""));
        JsonNode lp = plain.get("choices").get(0).get("logprobs");
        assertEquals(5, lp.get("tokens").size());
        assertEquals(5, lp.get("token_logprobs").size());
        assertEquals(5, lp.get("top_logprobs").size());
        assertEquals(0, lp.get("text_offset").get(0).asInt());
        String text = plain.get("choices").get(0).get("text").asText();
        assertTokensSitAtTheirOffsets(lp, text, 0);
        for (int i = 0; i < 5; i++) {
            assertTrue(lp.get("top_logprobs").get(i).size() >= 1
                    && lp.get("top_logprobs").get(i).size() <= 2);
            assertTrue(lp.get("token_logprobs").get(i).asDouble() <= 0);
        }

        List<JsonNode> chunks = events(http.post("/v1/completions", """
                {"model": "tiny", "prompt": "Once upon a time", "max_tokens": 5, "ignore_eos": true, "temperature": 0,
                 "logprobs": 0, "stream": true}"""));
        List<String> tokens = new ArrayList<>();
        chunks.forEach(
                c -> c.get("choices").get(0).get("logprobs").get("tokens").forEach(t -> tokens.add(t.asText())));
        List<String> whole = new ArrayList<>();
        lp.get("tokens").forEach(t -> whole.add(t.asText()));
        assertEquals(whole, tokens);
        HttpResponse<String> e = http.post("/v1/completions", """
                {"model": "tiny", "prompt": "x", "logprobs": 21}""");
        assertParam(e, "logprobs");
    }

    @Test
    void suffixNeedsFillInTheMiddleTokens() throws Exception {
        HttpResponse<String> r = http.post("/v1/completions", """
                {"model": "tiny", "prompt": "def f(", "suffix": "return x", "max_tokens": 4}""");
        assertEquals(400, r.statusCode());
        JsonNode error = JSON.readTree(r.body()).get("error");
        assertEquals("suffix", error.get("param").asText());
        assertTrue(error.get("message").asText().contains("fill-in-the-middle"));
    }

    @Test
    void embeddingsAreNormalizedAsFloatsOrBase64() throws Exception {
        JsonNode floats = ok(http.post("/v1/embeddings", """
                {"model": "tiny", "input": ["hello world", "something else entirely"]}"""));
        assertEquals("list", floats.get("object").asText());
        assertEquals(2, floats.get("data").size());
        JsonNode first = floats.get("data").get(0).get("embedding");
        assertTrue(first.size() > 8);
        double norm = 0;
        for (JsonNode x : first) {
            norm += x.asDouble() * x.asDouble();
        }
        assertEquals(1.0, norm, 1e-3);
        assertNotEquals(first, floats.get("data").get(1).get("embedding"));
        assertEquals(1, floats.get("data").get(1).get("index").asInt());
        assertTrue(floats.get("usage").get("prompt_tokens").asInt() > 4);

        JsonNode b64 = ok(http.post("/v1/embeddings", """
                {"model": "tiny", "input": "hello world", "encoding_format": "base64"}"""));
        byte[] bytes = Base64.getDecoder()
                .decode(b64.get("data").get(0).get("embedding").asText());
        assertEquals(4 * first.size(), bytes.length);
        float x0 = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getFloat(0);
        assertEquals(first.get(0).floatValue(), x0, 1e-6, "the same input embeds the same either way");

        assertEquals(
                "input",
                JSON.readTree(http.post("/v1/embeddings", """
                {"model": "tiny", "input": [{"a": 1}]}""").body())
                        .get("error")
                        .get("param")
                        .asText()
                        .substring(0, 5));
        assertEquals(400, http.post("/v1/embeddings", """
                {"model": "tiny", "input": [999999999]}""").statusCode());
        assertEquals(
                "encoding_format",
                JSON.readTree(http.post("/v1/embeddings", """
                {"model": "tiny", "input": "x", "encoding_format": "int8"}""").body())
                        .get("error")
                        .get("param")
                        .asText());
    }

    @Test
    void tokenizeAndDetokenizeRoundTrip() throws Exception {
        JsonNode t = ok(http.post("/tokenize", """
                {"content": "Hello <|im_start|> world", "with_pieces": true}"""));
        JsonNode tokens = t.get("tokens");
        assertTrue(tokens.size() > 2);
        StringBuilder pieces = new StringBuilder();
        List<Integer> ids = new ArrayList<>();
        for (JsonNode tok : tokens) {
            ids.add(tok.get("id").asInt());
            pieces.append(tok.get("piece").asText());
        }
        assertEquals("Hello <|im_start|> world", pieces.toString());
        JsonNode d = ok(http.post("/detokenize", "{\"tokens\": " + ids + "}"));
        assertEquals("Hello <|im_start|> world", d.get("content").asText());
        assertEquals(400, http.post("/detokenize", "{\"tokens\": [-1]}").statusCode());
        assertEquals(400, http.post("/tokenize", "{\"content\": 5}").statusCode());
    }

    @Test
    void modelsTellContextAndCapabilities() throws Exception {
        JsonNode m = JSON.readTree(http.get("/v1/models/tiny").body());
        assertEquals("tiny", m.get("id").asText());
        assertTrue(m.get("context_length").asInt() > 0);
        List<String> caps = new ArrayList<>();
        m.get("capabilities").forEach(c -> caps.add(c.asText()));
        assertTrue(caps.containsAll(List.of("chat", "completions", "embeddings")), caps.toString());
        assertTrue(m.get("template").get("name").isTextual());
    }

    @Test
    void modelNamesNeverOpenFiles() throws Exception {
        for (String name :
                List.of("../../etc/passwd", "/etc/passwd", model.toString(), "tiny.gguf", "..%2F..%2Fetc%2Fpasswd")) {
            HttpResponse<String> r = http.post(
                    "/v1/chat/completions",
                    JSON.createObjectNode()
                            .put("model", name)
                            .set("messages", JSON.readTree("[{\"role\":\"user\",\"content\":\"hi\"}]"))
                            .toString());
            assertEquals(404, r.statusCode(), name + ": " + r.body());
            assertEquals(
                    404,
                    http.post(
                                    "/v1/embeddings",
                                    JSON.createObjectNode()
                                            .put("model", name)
                                            .put("input", "x")
                                            .toString())
                            .statusCode());
        }
        // Jetty itself refuses an encoded separator in a path (400); either way, nothing is opened.
        int status = http.get("/v1/models/..%2F..%2Fetc%2Fpasswd").statusCode();
        assertTrue(status == 400 || status == 404, "status " + status);
        assertEquals(404, http.get("/v1/models/tiny.gguf").statusCode());
    }

    @Test
    void badInputIsNever500() throws Exception {
        List<String> bodies = new ArrayList<>(List.of(
                "[]",
                "null",
                "\"text\"",
                "{\"model\": 5, \"messages\": []}",
                "{\"model\": \"tiny\", \"messages\": \"hi\"}",
                "{\"model\": \"tiny\", \"messages\": [\"hi\"]}",
                "{\"model\": \"tiny\", \"messages\": [{\"role\": \"user\", \"content\": 5}]}",
                "{\"model\": \"tiny\", \"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"image_url\"}]}]}",
                "{\"model\": \"tiny\", \"max_tokens\": 1e300, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "{\"model\": \"tiny\", \"max_tokens\": 99999999999999999999999, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "{\"model\": \"tiny\", \"n\": -1, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "{\"model\": \"tiny\", \"n\": 1000, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "{\"model\": \"tiny\", \"seed\": \"x\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "{\"model\": \"tiny\", \"stop\": [1, 2], \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "{\"model\": \"tiny\", \"logit_bias\": {\"x\": 1}, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "{\"model\": \"tiny\", \"tools\": {}, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "{\"model\": \"tiny\", \"stream_options\": 3, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "{\"model\": \"tiny\", \"temperature\": 1e999, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "{\"model\": \"tiny\", \"prompt\": {}}",
                "{\"model\": \"tiny\", \"prompt\": [[]]}",
                "{\"model\": \"tiny\", \"input\": []}",
                "{\"model\": \"tiny\", \"input\": [[1, \"a\"]]}",
                "{\"model\": \"tiny\", \"messages\": " + "[".repeat(200) + "]".repeat(200) + "}"));
        for (String path :
                List.of("/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/tokenize", "/detokenize")) {
            for (String body : bodies) {
                HttpResponse<String> r = http.post(path, body);
                assertTrue(
                        r.statusCode() == 400 || r.statusCode() == 404,
                        path + " " + body + " -> " + r.statusCode() + " " + r.body());
                assertTrue(JSON.readTree(r.body()).get("error").get("message").isTextual());
            }
            // Invalid UTF-8 in the body.
            HttpResponse<String> r = http.send(http.request(path)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(
                            new byte[] {'{', '"', 'm', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'})));
            assertEquals(400, r.statusCode(), path + " " + r.body());
        }
        HttpResponse<String> deep = http.post(
                "/v1/chat/completions",
                "{\"model\": \"tiny\", \"messages\": " + "[".repeat(200) + "]".repeat(200) + "}");
        assertTrue(
                JSON.readTree(deep.body()).get("error").get("message").asText().contains("malformed JSON"),
                deep.body());
    }

    /**
     * {@code echo} with {@code logprobs} scores the prompt (as lm-evaluation-harness asks): its
     * tokens come first, the first with {@code null} (nothing precedes it), each at its offset in
     * the echoed text, followed by the generated tokens; streamed, the echo chunk carries them.
     */
    @Test
    void anEchoedPromptIsScoredTokenByToken() throws Exception {
        String prompt = "Once upon a time, in a land far away";
        JsonNode body = ok(http.post("/v1/completions", """
                {"model": "tiny", "prompt": "%s", "max_tokens": 3, "ignore_eos": true, "temperature": 0,
                 "logprobs": 1, "echo": true}""".formatted(prompt)));
        int promptTokens = body.get("usage").get("prompt_tokens").asInt();
        JsonNode choice = body.get("choices").get(0);
        JsonNode lp = choice.get("logprobs");
        String text = choice.get("text").asText();
        assertTrue(text.startsWith(prompt), text);
        assertEquals(promptTokens + 3, lp.get("tokens").size(), "the prompt's tokens, then the generated ones");
        assertTrue(lp.get("token_logprobs").get(0).isNull(), "nothing precedes the first token");
        assertTrue(lp.get("top_logprobs").get(0).isNull());
        for (int i = 1; i < promptTokens + 3; i++) {
            assertTrue(lp.get("token_logprobs").get(i).asDouble() <= 0, "token " + i);
            assertEquals(1, lp.get("top_logprobs").get(i).size(), "token " + i);
        }
        assertEquals(0, lp.get("text_offset").get(0).asInt());
        assertEquals(
                prompt.length(),
                lp.get("text_offset").get(promptTokens).asInt(),
                "the first generated token follows the prompt");
        assertTokensSitAtTheirOffsets(lp, text, 0);
        StringBuilder joined = new StringBuilder();
        for (int i = 0; i < promptTokens; i++) {
            joined.append(lp.get("tokens").get(i).asText());
        }
        assertEquals(prompt, joined.toString(), "the scored tokens are the prompt's");

        List<JsonNode> chunks = events(http.post("/v1/completions", """
                {"model": "tiny", "prompt": "%s", "max_tokens": 3, "ignore_eos": true, "temperature": 0,
                 "logprobs": 1, "echo": true, "stream": true, "n": 2}""".formatted(prompt)));
        for (int index = 0; index < 2; index++) {
            int k = index;
            JsonNode first = chunks.stream()
                    .map(c -> c.get("choices").get(0))
                    .filter(c -> c.get("index").asInt() == k)
                    .findFirst()
                    .orElseThrow();
            assertEquals(prompt, first.get("text").asText(), "choice " + k + " opens with the echo");
            assertEquals(promptTokens, first.get("logprobs").get("tokens").size());
            for (int i = 0; i < promptTokens; i++) {
                assertEquals(
                        lp.get("token_logprobs").get(i).toString(),
                        first.get("logprobs").get("token_logprobs").get(i).toString(),
                        "choice " + k + ", streamed prompt token " + i);
            }
        }
    }

    /** Every token whose text is whole characters stands in {@code text} at its offset. */
    private static void assertTokensSitAtTheirOffsets(JsonNode lp, String text, int from) {
        for (int i = from; i < lp.get("tokens").size(); i++) {
            int at = lp.get("text_offset").get(i).asInt();
            String token = lp.get("tokens").get(i).asText();
            if (!token.contains("\uFFFD")) {
                assertEquals(token, text.substring(at, at + token.length()), "token " + i + " sits at its offset");
            }
        }
    }
}
