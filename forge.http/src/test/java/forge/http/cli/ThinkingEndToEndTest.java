package forge.http.cli;

import static forge.http.cli.Http.JSON;
import static forge.http.cli.Http.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.lib.gguf.synth.SynthSpec;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Every API's reasoning switch reaches the chat template's, and reasoning comes back in each
 * API's own terms: chat's {@code reasoning_effort}, Responses' {@code reasoning.effort} and
 * {@code reasoning} items, Anthropic's {@code thinking} and {@code thinking} blocks. Qwen 3.5's
 * template opens {@code <think>} in its generation prompt unless thinking is off (then it writes
 * an empty think block), so a random model's output is reasoning until it closes it, which noise
 * does not.
 */
class ThinkingEndToEndTest {

    @AutoClose
    static final TestServer server = TestServer.serve(
            TestServer.model("tiny-qwen", SynthSpec.tiny("qwen")),
            "--alias demo -c 2048 -np 2 -t 2 --template qwen3.5");

    static final Http http = server.http();

    private static int chatPrompt(String extra) throws Exception {
        return ok(http.post("/v1/chat/completions", """
                {"model": "demo", "max_tokens": 1, %s "messages": [{"role": "user", "content": "hi"}]}""".formatted(extra)))
                .get("usage")
                .get("prompt_tokens")
                .asInt();
    }

    @Test
    void reasoningEffortIsTheTemplatesThinkingSwitch() throws Exception {
        int on = chatPrompt("");
        // "none" and "minimal" turn thinking off: the template closes an empty think block in the prompt.
        int off = chatPrompt("\"reasoning_effort\": \"none\",");
        assertTrue(off > on, on + " vs " + off);
        assertEquals(off, chatPrompt("\"reasoning_effort\": \"minimal\","));
        assertEquals(on, chatPrompt("\"reasoning_effort\": \"high\","));
        // The request's own template options win.
        assertEquals(
                on,
                chatPrompt("\"reasoning_effort\": \"none\", \"chat_template_kwargs\": {\"enable_thinking\": true},"));
        assertEquals(400, http.post("/v1/chat/completions", """
                {"model": "demo", "reasoning_effort": "ultra", "messages": [{"role": "user", "content": "hi"}]}""").statusCode());
        JsonNode reply = ok(http.post("/v1/chat/completions", """
                {"model": "demo", "max_tokens": 4, "temperature": 0, "messages": [{"role": "user", "content": "hi"}]}"""));
        assertTrue(
                reply.get("choices")
                                .get(0)
                                .get("message")
                                .get("reasoning_content")
                                .asText()
                                .length()
                        > 0,
                reply.toString());
    }

    /** Ollama's {@code think} (a switch or an effort) is the same switch; thinking comes back in {@code thinking}. */
    @Test
    void ollamasThinkIsTheTemplatesThinkingSwitch() throws Exception {
        String body = """
                {"model": "demo", "stream": false, %s "options": {"num_predict": 4, "temperature": 0},
                 "messages": [{"role": "user", "content": "hi"}]}""";
        JsonNode on = ok(http.post("/api/chat", body.formatted("\"think\": true,")));
        JsonNode off = ok(http.post("/api/chat", body.formatted("\"think\": false,")));
        int prompt = on.get("prompt_eval_count").asInt();
        assertTrue(off.get("prompt_eval_count").asInt() > prompt, on + " vs " + off);
        assertEquals(
                prompt,
                ok(http.post("/api/chat", body.formatted("\"think\": \"high\",")))
                        .get("prompt_eval_count")
                        .asInt());
        assertEquals(chatPrompt(""), prompt, "the same prompt as through OpenAI's door");
        assertTrue(on.get("message").get("thinking").asText().length() > 0, on.toString());
        assertFalse(off.get("message").has("thinking"), off.toString());
        // Streamed, the thinking comes line by line.
        HttpResponse<String> r = http.post(
                "/api/chat",
                body.replace("\"stream\": false", "\"stream\": true").formatted(""));
        StringBuilder thinking = new StringBuilder();
        for (String line : r.body().split("\n")) {
            thinking.append(JSON.readTree(line).path("message").path("thinking").asText(""));
        }
        assertEquals(on.get("message").get("thinking").asText(), thinking.toString(), r.body());
    }

    @Test
    void anthropicThinkingComesBackAsThinkingBlocks() throws Exception {
        JsonNode m = ok(http.post("/v1/messages", """
                {"model": "demo", "max_tokens": 6, "temperature": 0, "thinking": {"type": "adaptive"},
                 "messages": [{"role": "user", "content": "hi"}]}"""));
        JsonNode block = m.get("content").get(0);
        assertEquals("thinking", block.get("type").asText(), m.toString());
        assertTrue(block.get("thinking").asText().length() > 0);
        assertEquals("", block.get("signature").asText());

        List<Http.Event> events = Http.namedEvents(http.post("/v1/messages", """
                {"model": "demo", "max_tokens": 6, "temperature": 0, "stream": true, "thinking": {"type": "adaptive"},
                 "messages": [{"role": "user", "content": "hi"}]}"""));
        String names = events.stream()
                .map(e -> e.name()
                        + (e.name().equals("content_block_delta")
                                ? ":" + e.data().get("delta").get("type").asText()
                                : ""))
                .collect(Collectors.joining(" "));
        // Thinking first; should the noise close the think block, its text follows in a block of its own.
        assertTrue(
                names.matches(
                        "message_start content_block_start ping( content_block_delta:thinking_delta)+"
                                + " content_block_delta:signature_delta content_block_stop"
                                + "( content_block_start( content_block_delta:text_delta)+ content_block_stop)? message_delta message_stop"),
                names);
        assertEquals(
                "thinking",
                events.get(1).data().get("content_block").get("type").asText());

        // Disabled, the prompt is the one with thinking off: the count says so.
        int disabled = ok(http.post("/v1/messages/count_tokens", """
                {"model": "demo", "thinking": {"type": "disabled"}, "messages": [{"role": "user", "content": "hi"}]}"""))
                .get("input_tokens")
                .asInt();
        int enabled = ok(http.post("/v1/messages/count_tokens", """
                {"model": "demo", "thinking": {"type": "enabled", "budget_tokens": 1024}, "messages": [{"role": "user", "content": "hi"}]}"""))
                .get("input_tokens")
                .asInt();
        assertTrue(disabled > enabled, enabled + " vs " + disabled);
    }

    /**
     * A family whose template takes a thinking budget (Seed-OSS's {@code thinking_budget}) or an
     * effort (gpt-oss's {@code reasoning_effort}) gets them: here a model's own Jinja template that
     * writes what it was given into the prompt, served by the generic path.
     */
    @Test
    void templatesThatTakeABudgetOrAnEffortGetThem() throws Exception {
        String template = "{%- for m in messages %}{{ m['content'] }}{% endfor %}"
                + "{% if thinking_budget is defined %}[budget {{ thinking_budget }}]{% endif %}"
                + "{% if reasoning_effort is defined %}[effort {{ reasoning_effort }}]{% endif %}"
                + "{% if enable_thinking is defined and not enable_thinking %}[no thinking]{% endif %}";
        var model = TestServer.modelWithTemplate("tiny-budget", template);
        try (TestServer own = TestServer.serve(model, "-c 1024 -np 1 -t 2")) {
            java.util.function.Function<String, Integer> count = thinking -> {
                try {
                    return ok(own.http().post("/v1/messages/count_tokens", """
                            {"messages": [{"role": "user", "content": "hi"}] %s}""".formatted(thinking)))
                            .get("input_tokens")
                            .asInt();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
            int plain = count.apply("");
            int budget = count.apply(", \"thinking\": {\"type\": \"enabled\", \"budget_tokens\": 1024}");
            int larger = count.apply(", \"thinking\": {\"type\": \"enabled\", \"budget_tokens\": 1000000}");
            assertTrue(plain < budget && budget < larger, plain + " < " + budget + " < " + larger);
            int effort = ok(own.http().post("/v1/chat/completions", """
                    {"max_tokens": 1, "reasoning_effort": "high", "messages": [{"role": "user", "content": "hi"}]}"""))
                    .get("usage")
                    .get("prompt_tokens")
                    .asInt();
            int none = ok(own.http().post("/v1/chat/completions", """
                    {"max_tokens": 1, "messages": [{"role": "user", "content": "hi"}]}"""))
                    .get("usage")
                    .get("prompt_tokens")
                    .asInt();
            assertTrue(effort > none, none + " vs " + effort);
        }
    }

    @Test
    void responsesReasoningComesBackAsReasoningItems() throws Exception {
        JsonNode r = ok(http.post("/v1/responses", """
                {"model": "demo", "input": "hi", "max_output_tokens": 6, "temperature": 0, "reasoning": {"effort": "medium"}}"""));
        JsonNode item = r.get("output").get(0);
        assertEquals("reasoning", item.get("type").asText(), r.toString());
        assertTrue(item.get("id").asText().startsWith("rs_"));
        assertEquals("reasoning_text", item.get("content").get(0).get("type").asText());
        assertTrue(item.get("summary").isArray());

        List<Http.Event> events = Http.namedEvents(http.post("/v1/responses", """
                {"model": "demo", "input": "hi", "max_output_tokens": 6, "temperature": 0, "stream": true}"""));
        String names = events.stream().map(Http.Event::name).collect(Collectors.joining(" "));
        assertTrue(
                names.matches(
                        "response\\.created response\\.in_progress response\\.output_item\\.added response\\.content_part\\.added"
                                + "( response\\.reasoning_text\\.delta)+ response\\.reasoning_text\\.done response\\.content_part\\.done"
                                + " response\\.output_item\\.done"
                                + "( response\\.output_item\\.added response\\.content_part\\.added( response\\.output_text\\.delta)+"
                                + " response\\.output_text\\.done response\\.content_part\\.done response\\.output_item\\.done)?"
                                + " response\\.(completed|incomplete)"),
                names);

        int off = ok(http.post("/v1/responses", """
                {"model": "demo", "input": "hi", "max_output_tokens": 1, "reasoning": {"effort": "none"}}"""))
                .get("usage")
                .get("input_tokens")
                .asInt();
        int on = ok(http.post("/v1/responses", """
                {"model": "demo", "input": "hi", "max_output_tokens": 1}"""))
                .get("usage")
                .get("input_tokens")
                .asInt();
        assertTrue(off > on, on + " vs " + off);
    }
}
