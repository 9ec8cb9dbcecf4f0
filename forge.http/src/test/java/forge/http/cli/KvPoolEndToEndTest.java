package forge.http.cli;

import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import java.util.Iterator;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * One KV pool for all slots through {@code forge serve -kvu}: {@code /props} says so, a request
 * may use more than an equal share of the context, a prompt beyond the whole context is refused
 * with the context error (400), and one that fits the context but not beside a running request
 * gets 503 with {@code Retry-After}, and is served once that request is gone.
 */
class KvPoolEndToEndTest {

    @AutoClose
    static final TestServer server = TestServer.serve(
            TestServer.model("tiny-qwen-4k", SynthSpec.tiny("qwen").withContextLength(4096)),
            "-c 4096 -np 2 -kvu -t 2");

    static final Http http = server.http();

    /** A prompt of {@code n} token ids. */
    private static String tokens(int n) {
        StringJoiner ids = new StringJoiner(",", "[", "]");
        for (int i = 0; i < n; i++) {
            ids.add(String.valueOf(100 + i % 200));
        }
        return ids.toString();
    }

    private static HttpResponse<String> complete(int promptTokens, int maxTokens) throws Exception {
        return http.post("/v1/completions", """
                {"model": "tiny-qwen-4k", "prompt": %s, "max_tokens": %d, "temperature": 0}""".formatted(tokens(promptTokens), maxTokens));
    }

    @Test
    void propsSayThePoolIsSharedAndARequestMayUseMoreThanAnEqualShare() throws Exception {
        JsonNode runtime = ok(http.get("/props")).get("runtime");
        assertTrue(runtime.get("kv_unified").asBoolean(), runtime.toString());
        assertEquals(4096, runtime.get("n_ctx").asInt());
        assertEquals(4096, runtime.get("n_ctx_slot").asInt(), "a request may fill the pool");
        JsonNode body = ok(complete(3000, 8));
        assertEquals(3000, body.get("usage").get("prompt_tokens").asInt(), "more than the 2048 of an equal share");
        assertEquals(8, body.get("usage").get("completion_tokens").asInt());
    }

    @Test
    void aPromptBeyondTheWholeContextIsTheContextError() throws Exception {
        HttpResponse<String> r = complete(5000, 1);
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains("context"), r.body());
    }

    @Test
    void aPromptThatFitsOnlyWhenTheRunningRequestEndsGets503AndRetryAfter() throws Exception {
        // A long answer, streamed: once its first chunk is here it holds cells, for thousands of steps.
        HttpResponse<Stream<String>> running = http.stream("/v1/completions", """
                {"model": "tiny-qwen-4k", "prompt": %s, "max_tokens": 4000, "ignore_eos": true, "stream": true}""".formatted(tokens(16)));
        assertEquals(200, running.statusCode());
        try (Stream<String> lines = running.body()) {
            Iterator<String> it = lines.iterator();
            while (it.hasNext() && !it.next().startsWith("data: {")) {
                // until the first token's chunk
            }
            // 4090 + 1 cells fit the context of 4096, not beside the running request's 16 prompt cells and
            // more: refused when it would start, before anything was sent.
            HttpResponse<String> refused = complete(4090, 1);
            assertEquals(503, refused.statusCode(), refused.body());
            assertEquals("1", refused.headers().firstValue("Retry-After").orElse(""));
            assertTrue(refused.body().contains("KV pool"), refused.body());
        } // closing the stream cancels the running request
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        HttpResponse<String> retried;
        do {
            retried = complete(4090, 1);
        } while (retried.statusCode() == 503 && System.nanoTime() < deadline);
        assertEquals(200, retried.statusCode(), "served once the pool has room: " + retried.body());
        JsonNode slots = ok(http.get("/slots"));
        for (JsonNode slot : slots) {
            assertTrue(!slot.path("is_processing").asBoolean(), "no slot leaked: " + slots);
        }
    }
}
