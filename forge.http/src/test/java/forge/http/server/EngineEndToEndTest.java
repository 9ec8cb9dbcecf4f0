package forge.http.server;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.http.cli.Http;
import forge.http.cli.TestServer;
import forge.lib.gguf.synth.SynthSpec;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The engine seen through HTTP: clients that disconnect (streaming or not) free their slots,
 * prompt caching shows in {@code usage} and {@code timings}, and {@code /slots}, {@code /props} and
 * {@code /metrics} report the engine. One real server, four slots.
 */
class EngineEndToEndTest {

    @AutoClose
    static TestServer server;

    static Http http;

    @BeforeAll
    static void start() {
        // Wider than the tiny default so decoding takes long enough to be interrupted: at thousands of
        // tokens a second a cancelled request could finish before anyone noticed its client left.
        Path model = TestServer.model("tiny-qwen", SynthSpec.tiny("qwen").withShape(256, 4, 8, 2, 768));
        server = TestServer.serve(model, "-c 4096 -np 4 -t 2 --profile low-latency -b 128");
        http = server.http();
    }

    static HttpResponse<String> post(String body) throws Exception {
        return http.post("/v1/chat/completions", body);
    }

    static String chat(String user, int maxTokens, boolean stream) {
        return """
                {"model": "tiny-qwen", "max_tokens": %d, "temperature": 0, "ignore_eos": true, "stream": %b,
                 "stream_options": {"include_usage": true},
                 "messages": [{"role": "system", "content": "%s"}, {"role": "user", "content": "%s"}]}
                """.formatted(maxTokens, stream, "You are a helpful assistant. ".repeat(8), user);
    }

    /** Sends a request on a raw socket, so the test can close the connection whenever it likes. */
    static Socket open(String body) throws Exception {
        return open("/v1/chat/completions", body);
    }

    static Socket open(String path, String body) throws Exception {
        Socket socket = new Socket("127.0.0.1", server.port());
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: " + bytes.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
        return socket;
    }

    static double metric(String scrape, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*})? ([0-9.eE+-]+)$")
                .matcher(scrape);
        double sum = 0;
        while (m.find()) {
            sum += Double.parseDouble(m.group(2));
        }
        return sum;
    }

    static JsonNode slots() throws Exception {
        return ok(http.get("/slots"));
    }

    static void awaitIdle(long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            JsonNode slots = slots();
            boolean idle = true;
            for (JsonNode s : slots) {
                idle &= s.get("state").asText().equals("idle")
                        && !s.get("is_processing").asBoolean();
            }
            if (idle) {
                assertEquals(4, slots.size());
                return;
            }
            assertTrue(System.nanoTime() < deadline, "slots still busy: " + slots);
            Thread.sleep(20);
        }
    }

    @Test
    void eightStreamsOnFourSlotsFourDropTheOthersFinishAndEverySlotIsFreed() throws Exception {
        awaitIdle(60);
        double completionBefore = metric(http.get("/metrics").body(), "forge_completion_tokens_total");
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Integer>> droppers = new ArrayList<>();
            List<Future<String>> finishers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                int n = i;
                droppers.add(pool.submit(() -> {
                    try (Socket s = open(chat("drop " + n, 600, true))) {
                        BufferedReader in =
                                new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                        int chunks = 0;
                        for (String line = in.readLine(); line != null && chunks < 3; line = in.readLine()) {
                            if (line.startsWith("data: {")) {
                                chunks++;
                            }
                        }
                        return chunks; // closing the socket mid-stream
                    }
                }));
                finishers.add(
                        pool.submit(() -> post(chat("finish " + n, 24, true)).body()));
            }
            for (Future<Integer> d : droppers) {
                assertEquals(3, d.get(120, TimeUnit.SECONDS));
            }
            for (Future<String> f : finishers) {
                String body = f.get(120, TimeUnit.SECONDS);
                assertTrue(body.endsWith("data: [DONE]\n\n"), body);
                JsonNode usage = null;
                String finish = null;
                for (String line : body.split("\n")) {
                    if (line.startsWith("data: {")) {
                        JsonNode chunk = JSON.readTree(line.substring(6));
                        if (chunk.has("usage")) {
                            usage = chunk.get("usage");
                        } else if (!chunk.get("choices")
                                .get(0)
                                .get("finish_reason")
                                .isNull()) {
                            finish = chunk.get("choices")
                                    .get(0)
                                    .get("finish_reason")
                                    .asText();
                            assertTrue(chunk.get("timings").has("cache_n"), line);
                        }
                    }
                }
                assertEquals("length", finish);
                assertEquals(24, usage.get("completion_tokens").asInt());
                assertTrue(usage.get("prompt_tokens_details").has("cached_tokens"), usage.toString());
            }
        }
        awaitIdle(30);
        // The dropped streams stopped early: far fewer than their 4 x 600 tokens were generated.
        double generated = metric(http.get("/metrics").body(), "forge_completion_tokens_total") - completionBefore;
        assertTrue(generated >= 4 * 24 && generated < 4 * 24 + 4 * 300, "generated " + generated);
    }

    /**
     * Sends {@code body} to {@code path} on a raw socket, closes the connection while a slot decodes
     * it, and returns how many tokens the server generated from then until every slot is idle again.
     */
    static double tokensOfAnAbandonedRequest(String path, String body) throws Exception {
        awaitIdle(60);
        double completionBefore = metric(http.get("/metrics").body(), "forge_completion_tokens_total");
        try (Socket _ = open(path, body)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            boolean decoding = false;
            while (!decoding) {
                assertTrue(System.nanoTime() < deadline, "the request never started decoding");
                for (JsonNode slot : slots()) {
                    decoding |= slot.get("state").asText().equals("decode");
                }
                Thread.sleep(10);
            }
        } // closed while the server is still generating
        awaitIdle(20);
        return metric(http.get("/metrics").body(), "forge_completion_tokens_total") - completionBefore;
    }

    @Test
    void aNonStreamingClientThatDisconnectsFreesItsSlot() throws Exception {
        double generated =
                tokensOfAnAbandonedRequest("/v1/chat/completions", chat("wait for the whole answer", 800, false));
        // A tiny model decodes thousands of tokens a second: stopping well short of 800 shows the cancel.
        assertTrue(generated < 600, "the abandoned request kept generating: " + generated + " tokens");
    }

    @Test
    void aNonStreamingCompletionClientThatDisconnectsFreesItsSlot() throws Exception {
        String body = """
                {"model": "tiny-qwen", "max_tokens": 800, "temperature": 0, "ignore_eos": true, "prompt": "Once upon a time"}""";
        // The completions path feeds the same counter as chat, once it is done or cancelled.
        double generated = tokensOfAnAbandonedRequest("/v1/completions", body);
        assertTrue(generated < 600, "the abandoned completion kept generating: " + generated + " tokens");
    }

    @Test
    void aRepeatedConversationIsServedFromTheCacheAndReportsCachedTokens() throws Exception {
        awaitIdle(60);
        JsonNode first = JSON.readTree(post(chat("same question", 4, false)).body());
        JsonNode second = JSON.readTree(post(chat("same question", 4, false)).body());
        int prompt = second.get("usage").get("prompt_tokens").asInt();
        // Everything but the last prompt token comes from the slot's cache.
        assertEquals(
                prompt - 1,
                second.get("usage")
                        .get("prompt_tokens_details")
                        .get("cached_tokens")
                        .asInt(),
                second.toString());
        assertEquals(prompt - 1, second.get("timings").get("cache_n").asInt());
        assertEquals(1, second.get("timings").get("prompt_n").asInt());
        assertEquals(
                first.get("choices").get(0).get("message").get("content"),
                second.get("choices").get(0).get("message").get("content"));
        assertTrue(metric(http.get("/metrics").body(), "forge_cached_prompt_tokens_total") >= prompt - 1);
    }

    @Test
    void propsReportTheEffectiveSettings() throws Exception {
        HttpResponse<String> r = http.get("/props");
        JsonNode props = ok(r);
        assertEquals(4, props.get("total_slots").asInt());
        // -c 4096 capped at the model's training context (1024) per slot.
        assertEquals(4096, props.get("n_ctx").asInt());
        assertEquals(1024, props.get("default_generation_settings").get("n_ctx").asInt());
        assertEquals(
                "qwen2.5", props.get("chat_template").asText(), "the qwen family claims the synthetic qwen2 model");
        assertTrue(props.get("model_path").asText().endsWith("tiny-qwen.gguf"));
        JsonNode runtime = props.get("runtime");
        assertEquals("low-latency", runtime.get("profile").asText());
        assertEquals(128, runtime.get("n_batch").asInt(), "a flag wins over the profile");
        assertEquals(256, runtime.get("n_ubatch").asInt(), "the profile's ubatch");
        assertEquals("on", runtime.get("flash_attn").asText());
        assertEquals("f16", runtime.get("kv_cache_type").asText());
        assertEquals(2, runtime.get("n_threads").asInt());
        assertTrue(runtime.get("warmup").asBoolean());
        assertEquals(404, http.get("/props?model=nope").statusCode());
    }

    @Test
    void metricsAreInPrometheusTextFormat() throws Exception {
        awaitIdle(60);
        assertEquals(200, post(chat("count me", 3, false)).statusCode());
        HttpResponse<String> r = http.get("/metrics");
        assertEquals(200, r.statusCode());
        assertTrue(
                r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"),
                r.headers().toString());
        String body = r.body();
        assertTrue(body.contains("# TYPE forge_http_requests_total counter"), body);
        assertTrue(body.contains("forge_http_requests_total{route=\"/v1/chat/completions\",status=\"200\"}"), body);
        assertTrue(body.contains("# TYPE forge_http_request_duration_seconds histogram"), body);
        assertTrue(metric(body, "forge_time_to_first_token_seconds_count") >= 1, body);
        assertTrue(metric(body, "forge_prompt_tokens_total") > 0);
        assertTrue(metric(body, "forge_completion_tokens_total") >= 3);
        assertTrue(metric(body, "forge_decode_tokens_per_second_count") >= 1, body);
        assertEquals(0, metric(body, "forge_queue_depth"));
        assertEquals(0, metric(body, "forge_slots_busy"));
        assertEquals(4, metric(body, "forge_slots_total"));
        assertTrue(metric(body, "forge_kv_cells_used") > 0, body);
        assertTrue(metric(body, "forge_prefill_tokens_total") > 0, body);
        assertTrue(body.contains("forge_kv_cells{model=\"tiny-qwen\"} 4096"), body);
    }
}
