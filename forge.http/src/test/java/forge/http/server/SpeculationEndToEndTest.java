package forge.http.server;

import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.http.cli.Http;
import forge.http.cli.TestServer;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * N-gram speculative decoding over HTTP: {@code --spec-type ngram-simple} and its sizes, what
 * {@code /props} says, llama-server's {@code draft_n} / {@code draft_n_accepted} in {@code timings}
 * and its {@code llamacpp:spec_decode_*} counters in {@code /metrics}, and the per-request
 * {@code speculative.n_max} that turns it off without changing the answer.
 */
class SpeculationEndToEndTest {

    @AutoClose
    static TestServer server;

    static Http http;

    @BeforeAll
    static void start() {
        Path model = TestServer.model("tiny-qwen", SynthSpec.tiny("qwen"));
        server = TestServer.serve(
                model, "-c 2048 -np 2 -t 2 --spec-type ngram-simple --spec-ngram-simple-size-n 2 --draft-max 16");
        http = server.http();
    }

    /** A greedy chat over a repeated code block, with extra fields. */
    static String chat(String extra) {
        String code = "int add(int a, int b) { return a + b; }\\n".repeat(3);
        return """
                {"model": "tiny-qwen", "max_tokens": 80, "temperature": 0, "ignore_eos": true%s,
                 "messages": [{"role": "user", "content": "%s"}]}
                """.formatted(extra, code);
    }

    @Test
    void propsSayWhatIsOn() throws Exception {
        assertPropsSay(http, """
                {"speculative.types": "ngram-simple", "speculative.n_max": 16, "speculative.ngram_size_n": 2}""");
    }

    /** The default generation settings of {@code /props} hold each field of {@code expected} (a JSON object) as it is. */
    static void assertPropsSay(Http http, String expected) throws Exception {
        JsonNode params =
                ok(http.get("/props")).get("default_generation_settings").get("params");
        for (var field : Json.MAPPER.readTree(expected).properties()) {
            assertEquals(field.getValue(), params.get(field.getKey()), field.getKey());
        }
    }

    @Test
    void draftsShowInTimingsAndMetricsAndARequestMayTurnThemOffWithTheSameAnswer() throws Exception {
        JsonNode on = sameAnswerWithAndWithoutDrafts(http, chat(""), chat(", \"speculative.n_max\": 0"));
        JsonNode timings = on.get("timings");
        assertTrue(timings.get("draft_n_accepted").asInt() > 0, timings.toString());
        assertFalse(on.has("ignored_params") || on.toString().contains("speculative.n_max"));
        String scrape = http.get("/metrics").body();
        assertTrue(
                EngineEndToEndTest.metric(scrape, "llamacpp:spec_decode_num_draft_tokens_total")
                        >= timings.get("draft_n").asInt(),
                scrape);
        assertTrue(EngineEndToEndTest.metric(scrape, "llamacpp:spec_decode_num_accepted_tokens_total") > 0, scrape);
        assertTrue(EngineEndToEndTest.metric(scrape, "llamacpp:spec_decode_num_drafts_total") > 0, scrape);
    }

    /**
     * Posts the chat {@code on} (drafting) and {@code off} (drafts turned off): the answers are the
     * same, the first one drafted and the other has no draft fields (as llama-server); returns the
     * first.
     */
    static JsonNode sameAnswerWithAndWithoutDrafts(Http http, String on, String off) throws Exception {
        JsonNode drafting = ok(http.post("/v1/chat/completions", on));
        JsonNode plain = ok(http.post("/v1/chat/completions", off));
        assertEquals(
                plain.at("/choices/0/message/content").asText(),
                drafting.at("/choices/0/message/content").asText());
        assertTrue(
                drafting.get("timings").get("draft_n").asInt() > 0,
                drafting.get("timings").toString());
        assertFalse(plain.get("timings").has("draft_n"), "no drafts, no draft fields (as llama-server)");
        return drafting;
    }

    /** The draft tokens the server has counted so far. */
    static long drafted() throws Exception {
        return (long)
                EngineEndToEndTest.metric(http.get("/metrics").body(), "llamacpp:spec_decode_num_draft_tokens_total");
    }

    @Test
    void messagesAndResponsesReadTheSameSpeculativeFields() throws Exception {
        String code = "int add(int a, int b) { return a + b; }\\n".repeat(3);
        String messages = """
                {"model": "tiny-qwen", "max_tokens": 60, "temperature": 0%s,
                 "messages": [{"role": "user", "content": "%s"}]}
                """;
        String responses = """
                {"model": "tiny-qwen", "max_output_tokens": 60, "temperature": 0%s, "input": "%s"}
                """;
        for (String[] door : new String[][] {{"/v1/messages", messages}, {"/v1/responses", responses}}) {
            long before = drafted();
            HttpResponse<String> on = http.post(door[0], door[1].formatted("", code));
            assertEquals(200, on.statusCode(), on.body());
            long afterOn = drafted();
            HttpResponse<String> off = http.post(door[0], door[1].formatted(", \"speculative.n_max\": 0", code));
            assertEquals(200, off.statusCode(), off.body());
            assertEquals(afterOn, drafted(), door[0] + ": speculative.n_max 0 drafts nothing");
            assertTrue(afterOn > before, door[0] + ": the engine's speculation drafts when the body names none");
            String ignored = off.headers().firstValue("X-Forge-Ignored-Params").orElse("");
            assertFalse(ignored.contains("speculative"), door[0] + " read the field: " + ignored);
            HttpResponse<String> bad = http.post(door[0], door[1].formatted(", \"speculative.n_max\": -1", code));
            assertEquals(400, bad.statusCode(), bad.body());
            assertTrue(bad.body().contains("speculative.n_max"), bad.body());
        }
        HttpResponse<String> anthropic =
                http.post("/v1/messages", messages.formatted(", \"speculative.p_min\": 2", code));
        assertEquals(400, anthropic.statusCode(), anthropic.body());
        assertEquals("error", Http.json(anthropic).get("type").asText(), "Anthropic's error shape");
    }

    @Test
    void anOutOfRangeDraftSizeIsRefusedInTheRoutesShape() throws Exception {
        HttpResponse<String> r = http.post("/v1/chat/completions", chat(", \"speculative.n_max\": -1"));
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains("speculative.n_max"), r.body());
        HttpResponse<String> c = http.post("/v1/completions", """
                {"model": "tiny-qwen", "prompt": "a b a b a b", "max_tokens": 4, "speculative.n_min": 5, "speculative.n_max": 2}
                """);
        assertEquals(400, c.statusCode(), c.body());
    }
}
