package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The context policy as a new user meets it with {@code -np 4 -c 8192} and an editor that sends
 * {@code max_tokens: 32000} (OpenCode, for a model without a configured limit): a prompt that fits
 * generates until its slot is full and finishes with {@code length}, the response names the
 * limit it ran with; a prompt that does not fit is still refused before anything is generated.
 */
class ContextPolicyEndToEndTest {

    // Trained for 4096 tokens, so that 8192 cells give each of the 4 slots 2048.
    @AutoClose
    static final TestServer server = TestServer.serve(
            TestServer.model("tiny-qwen-4k", SynthSpec.tiny("qwen").withContextLength(4096)),
            "--alias demo -c 8192 -np 4 -t 2");

    static final Http http = server.http();

    /** A long prompt, so that little room is left in the 2048-token slot. */
    private static final String LONG = "The quick brown fox jumps over the lazy dog. ".repeat(50);

    @Test
    void aMaxTokensBeyondTheSlotGeneratesUntilItIsFull() throws Exception {
        HttpResponse<String> r = http.post("/v1/chat/completions", """
                {"model": "demo", "max_tokens": 32000, "ignore_eos": true, "messages": [{"role": "user", "content": "%s"}]}""".formatted(LONG));
        JsonNode body = ok(r);
        int prompt = body.get("usage").get("prompt_tokens").asInt();
        assertTrue(prompt > 1000 && prompt < 2048, "a prompt that fits with little room: " + prompt);
        assertEquals("length", body.get("choices").get(0).get("finish_reason").asText());
        assertEquals(2048 - prompt, body.get("usage").get("completion_tokens").asInt(), "until the slot is full");
        assertEquals(
                String.valueOf(2048 - prompt),
                r.headers().firstValue("X-Forge-Max-Tokens").orElse(null));

        // Streamed alike.
        r = http.post("/v1/chat/completions", """
                {"model": "demo", "max_tokens": 32000, "ignore_eos": true, "stream": true, "stream_options": {"include_usage": true},
                 "messages": [{"role": "user", "content": "%s"}]}""".formatted(LONG));
        assertEquals(
                String.valueOf(2048 - prompt),
                r.headers().firstValue("X-Forge-Max-Tokens").orElse(null));
        var chunks = Http.events(r);
        assertEquals(
                2048 - prompt,
                chunks.getLast().get("usage").get("completion_tokens").asInt());

        // /v1/completions too.
        r = http.post("/v1/completions", """
                {"model": "demo", "max_tokens": 32000, "ignore_eos": true, "prompt": "%s"}""".formatted(LONG));
        JsonNode completion = ok(r);
        assertEquals(
                "length", completion.get("choices").get(0).get("finish_reason").asText());
        int completionPrompt = completion.get("usage").get("prompt_tokens").asInt();
        assertEquals(
                2048 - completionPrompt,
                completion.get("usage").get("completion_tokens").asInt());
        assertEquals(
                String.valueOf(2048 - completionPrompt),
                r.headers().firstValue("X-Forge-Max-Tokens").orElse(null));
    }

    @Test
    void aMaxTokensThatFitsIsKeptAndNamed() throws Exception {
        HttpResponse<String> r = http.post("/v1/chat/completions", """
                {"model": "demo", "max_tokens": 3, "ignore_eos": true, "messages": [{"role": "user", "content": "hi"}]}""");
        assertEquals(3, ok(r).get("usage").get("completion_tokens").asInt());
        assertEquals("3", r.headers().firstValue("X-Forge-Max-Tokens").orElse(null));
    }

    @Test
    void aPromptBeyondTheSlotIsStillRefusedBeforeGenerating() throws Exception {
        HttpResponse<String> r = http.post("/v1/chat/completions", """
                {"model": "demo", "max_tokens": 32000, "messages": [{"role": "user", "content": "%s"}]}""".formatted(LONG.repeat(3)));
        assertEquals(400, r.statusCode(), r.body());
        assertEquals(
                "context_length_exceeded",
                JSON.readTree(r.body()).get("error").get("code").asText());
    }
}
