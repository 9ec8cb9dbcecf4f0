package forge.http.server;

import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.http.cli.Http;
import forge.http.cli.TestServer;
import forge.lib.gguf.synth.SynthSpec;
import java.nio.file.Path;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Draft-model speculative decoding over HTTP: {@code --model-draft} (with llama-server's draft
 * flags) loads a draft beside the served model, {@code /props} says {@code draft-simple} with its
 * sizes, {@code timings} count its drafts, and the answer is the one the model gives without them.
 */
class DraftModelEndToEndTest {

    @AutoClose
    static TestServer server;

    static Http http;

    @BeforeAll
    static void start() {
        Path model = TestServer.model("tiny-qwen", SynthSpec.tiny("qwen"));
        // The same shape and vocabulary with other weights: its drafts are mostly rejected.
        Path draft = TestServer.model("tiny-qwen-draft", SynthSpec.tiny("qwen").withSeed(11));
        server = TestServer.serve(
                model, "--spec-draft-n-max 4 --spec-draft-p-min 0.0 -c 2048 -np 2 -t 2", "-md", draft.toString());
        http = server.http();
    }

    static String chat(String extra) {
        return """
                {"model": "tiny-qwen", "max_tokens": 40, "temperature": 0, "ignore_eos": true%s,
                 "messages": [{"role": "user", "content": "Write a poem about the sea."}]}
                """.formatted(extra);
    }

    @Test
    void aRequiredToolCallIsTheSameWithAndWithoutDrafts() throws Exception {
        String body = """
                {"model": "tiny-qwen", "max_tokens": 60, "temperature": 0%s, "tool_choice": "required",
                 "tools": [{"type": "function", "function": {"name": "add", "parameters": {"type": "object",
                   "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}}],
                 "messages": [{"role": "user", "content": "Add 2 and 3."}]}
                """;
        JsonNode on = ok(http.post("/v1/chat/completions", body.formatted("")));
        JsonNode off = ok(http.post("/v1/chat/completions", body.formatted(", \"speculative.n_max\": 0")));
        // (The calls' ids are random: their functions and arguments are compared.)
        assertEquals(off.at("/choices/0/message/content"), on.at("/choices/0/message/content"));
        assertEquals(
                off.at("/choices/0/message/tool_calls/0/function"), on.at("/choices/0/message/tool_calls/0/function"));
        assertEquals(off.at("/choices/0/finish_reason"), on.at("/choices/0/finish_reason"));
        assertTrue(
                on.get("timings").get("draft_n").asInt() > 0, on.get("timings").toString());
    }

    @Test
    void propsSayDraftSimpleWithItsSizes() throws Exception {
        SpeculationEndToEndTest.assertPropsSay(http, """
                {"speculative.types": "draft-simple", "speculative.n_max": 4, "speculative.p_min": 0.0}""");
    }

    @Test
    void theDraftModelDraftsAndTheAnswerIsTheModelsOwn() throws Exception {
        JsonNode on = SpeculationEndToEndTest.sameAnswerWithAndWithoutDrafts(
                http, chat(""), chat(", \"speculative.n_max\": 0"));
        // A request's own size applies to the draft model: at most 1 token per draft.
        JsonNode one = ok(http.post("/v1/chat/completions", chat(", \"speculative.n_max\": 1")));
        assertEquals(
                on.at("/choices/0/message/content").asText(),
                one.at("/choices/0/message/content").asText());
        int drafted = one.get("timings").get("draft_n").asInt();
        int predicted = one.get("timings").get("predicted_n").asInt();
        assertTrue(drafted > 0 && drafted < predicted, one.get("timings").toString());
    }
}
