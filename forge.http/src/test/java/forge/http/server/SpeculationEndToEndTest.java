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
        JsonNode params =
                ok(http.get("/props")).get("default_generation_settings").get("params");
        assertEquals("ngram-simple", params.get("speculative.types").asText());
        assertEquals(16, params.get("speculative.n_max").asInt());
        assertEquals(2, params.get("speculative.ngram_size_n").asInt());
    }

    @Test
    void draftsShowInTimingsAndMetricsAndARequestMayTurnThemOffWithTheSameAnswer() throws Exception {
        JsonNode on = ok(http.post("/v1/chat/completions", chat("")));
        JsonNode off = ok(http.post("/v1/chat/completions", chat(", \"speculative.n_max\": 0")));
        assertEquals(
                on.at("/choices/0/message/content").asText(),
                off.at("/choices/0/message/content").asText());
        JsonNode timings = on.get("timings");
        assertTrue(timings.get("draft_n").asInt() > 0, timings.toString());
        assertTrue(timings.get("draft_n_accepted").asInt() > 0, timings.toString());
        assertFalse(off.get("timings").has("draft_n"), "no drafts, no draft fields (as llama-server)");
        assertFalse(on.has("ignored_params") || on.toString().contains("speculative.n_max"));
        String scrape = http.get("/metrics").body();
        assertTrue(
                EngineEndToEndTest.metric(scrape, "llamacpp:spec_decode_num_draft_tokens_total")
                        >= timings.get("draft_n").asInt(),
                scrape);
        assertTrue(EngineEndToEndTest.metric(scrape, "llamacpp:spec_decode_num_accepted_tokens_total") > 0, scrape);
        assertTrue(EngineEndToEndTest.metric(scrape, "llamacpp:spec_decode_num_drafts_total") > 0, scrape);
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
