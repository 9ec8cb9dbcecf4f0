package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.template.ChatMessage;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MessagesRequestTest {

    private static ChatRequest parse(String json) {
        return MessagesRequest.parse(Fields.of(body(json)));
    }

    private static JsonNode body(String json) {
        return Json.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    private static ApiError refused(String json) {
        ApiError e = assertThrows(ApiError.class, () -> parse(json));
        assertEquals(400, e.status(), e.getMessage());
        return e;
    }

    @Test
    void systemAsAStringOrTextBlocks() {
        assertEquals(
                ChatMessage.of(Role.SYSTEM, "Be brief."),
                parse("""
                {"model": "m", "max_tokens": 5, "system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]}""").prompt().messages().getFirst());
        assertEquals(
                ChatMessage.of(Role.SYSTEM, "Be brief. Be kind."),
                parse("""
                {"model": "m", "max_tokens": 5, "system": [{"type": "text", "text": "Be brief. ", "cache_control": {"type": "ephemeral"}},
                 {"type": "text", "text": "Be kind."}], "messages": [{"role": "user", "content": "hi"}]}""").prompt().messages().getFirst());
    }

    @Test
    void claudeCodesPerRequestBillingStampIsNeutralisedSoThePrefixCacheHits() {
        String a = parse("""
                {"max_tokens": 5, "system": [{"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.101.e51; cc_entrypoint=cli; cch=a5145;"},
                 {"type": "text", "text": "You are Claude Code."}], "messages": [{"role": "user", "content": "hi"}]}""").prompt().messages().getFirst().content();
        String b = parse("""
                {"max_tokens": 5, "system": "x-anthropic-billing-header: cc_version=2.1.101.e51; cc_entrypoint=cli; cch=9f00d;You are Claude Code.",
                 "messages": [{"role": "user", "content": "hi"}]}""").prompt().messages().getFirst().content();
        assertEquals(a, b);
        assertTrue(a.endsWith("You are Claude Code.") && a.contains("cc_entrypoint=cli; cch=-;"), a);
    }

    /**
     * The assistant turn of both doors' weather conversations (here and in {@link ResponsesRequestTest}):
     * "Checking." and the call {@code id} of get_weather for Paris, after {@code reasoning}.
     */
    static ChatMessage checkingTheWeather(String id, String reasoning) {
        return ChatMessage.calling(
                "Checking.", List.of(new ToolCall(id, "get_weather", "{\"city\":\"Paris\"}")), reasoning);
    }

    @Test
    void toolUseToolResultAndThinkingBlocksBecomeTheConversation() {
        ChatRequest r = parse("""
                {"max_tokens": 50, "messages": [
                  {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
                  {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "The user wants weather.", "signature": "sig"},
                    {"type": "text", "text": "Checking."},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]},
                  {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "sunny"}]},
                    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "no such city", "is_error": true},
                    {"type": "text", "text": "And tomorrow?"}]}],
                 "tools": [{"name": "get_weather", "description": "Weather", "input_schema": {"type": "object",
                   "properties": {"city": {"type": "string"}}, "required": ["city"]}}]}""");
        List<ChatMessage> m = r.prompt().messages();
        assertEquals(5, m.size(), m.toString());
        assertEquals(ChatMessage.of(Role.USER, "Weather?"), m.get(0));
        assertEquals(checkingTheWeather("toolu_1", "The user wants weather."), m.get(1));
        assertEquals(ChatMessage.toolResult("toolu_1", "sunny"), m.get(2));
        assertEquals(ChatMessage.toolResult("toolu_2", "Error: no such city"), m.get(3));
        assertEquals(ChatMessage.of(Role.USER, "And tomorrow?"), m.get(4));
        assertEquals("get_weather", r.prompt().tools().getFirst().name());
        assertEquals("object", r.prompt().tools().getFirst().parameters().get("type"));
    }

    @Test
    void anImageThatIsNoImageIsA400NamingItsDataAndDocumentsAreRefused() {
        ApiError e = refused("""
                {"max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "text", "text": "see"},
                 {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]}]}""");
        assertEquals("messages[0].content[1].source.data", e.param());
        assertTrue(e.getMessage().contains("is not a PNG, JPEG, GIF or BMP image"), e.getMessage());
        ApiError d = refused("""
                {"max_tokens": 5, "messages": [{"role": "user", "content": [
                 {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}}]}]}""");
        assertEquals("messages[0].content[0]", d.param());
        assertTrue(d.getMessage().contains("document blocks are not supported"), d.getMessage());
    }

    @Test
    void maxTokensIsRequired() {
        assertEquals("max_tokens", refused("""
                {"messages": [{"role": "user", "content": "hi"}]}""").param());
        // count_tokens has no max_tokens.
        assertEquals(-1, MessagesRequest.parse(Fields.of(body("""
                {"messages": [{"role": "user", "content": "hi"}]}""")), false).maxTokens());
    }

    @Test
    void samplingAndStopSequences() {
        ChatRequest r = parse("""
                {"max_tokens": 7, "temperature": 0.5, "top_p": 0.9, "top_k": 40, "stop_sequences": ["END", ""],
                 "stream": true, "metadata": {"user_id": "u1"}, "messages": [{"role": "user", "content": "hi"}]}""");
        assertEquals(7, r.maxTokens());
        assertEquals(0.5f, r.sampling().temperature());
        assertEquals(0.9f, r.sampling().topP());
        assertEquals(40, r.sampling().topK());
        assertEquals(List.of("END"), r.stops());
        assertTrue(r.stream());
        assertTrue(r.ignored().isEmpty(), r.ignored().toString());
        assertEquals("temperature", refused("""
                {"max_tokens": 7, "temperature": 1.5, "messages": [{"role": "user", "content": "hi"}]}""").param());
    }

    @Test
    void toolChoiceMapsToTheSameForcedCallsAsChat() {
        String tools = """
                "tools": [{"name": "a", "input_schema": {"type": "object"}}, {"name": "b", "input_schema": {"type": "object"}}]""";
        assertEquals(
                StructuredOutput.ToolChoice.REQUIRED,
                parse("""
                {"max_tokens": 5, %s, "tool_choice": {"type": "any"}, "messages": [{"role": "user", "content": "x"}]}""".formatted(tools)).structured().toolChoice());
        StructuredOutput forced = parse("""
                {"max_tokens": 5, %s, "tool_choice": {"type": "tool", "name": "b", "disable_parallel_tool_use": true},
                 "messages": [{"role": "user", "content": "x"}]}""".formatted(tools)).structured();
        assertEquals(StructuredOutput.ToolChoice.FUNCTION, forced.toolChoice());
        assertEquals("b", forced.function());
        assertEquals(false, forced.parallel());
        assertEquals(
                StructuredOutput.ToolChoice.NONE,
                parse("""
                {"max_tokens": 5, %s, "tool_choice": {"type": "none"}, "messages": [{"role": "user", "content": "x"}]}""".formatted(tools)).structured().toolChoice());
        assertEquals("tool_choice", refused("""
                {"max_tokens": 5, %s, "tool_choice": {"type": "tool", "name": "c"}, "messages": [{"role": "user", "content": "x"}]}""".formatted(tools)).param());
        assertEquals("tools[0].type", refused("""
                {"max_tokens": 5, "tools": [{"type": "web_search_20250305", "name": "web_search"}], "messages": [{"role": "user", "content": "x"}]}""").param());
    }

    @Test
    void thinkingIsTheTemplatesSwitchWithItsBudget() {
        assertEquals(
                Map.of("enable_thinking", true, "thinking_budget", 2000),
                parse("""
                {"max_tokens": 4000, "thinking": {"type": "enabled", "budget_tokens": 2000}, "messages": [{"role": "user", "content": "x"}]}""").prompt().options());
        assertEquals(Map.of("enable_thinking", false), parse("""
                {"max_tokens": 4000, "thinking": {"type": "disabled"}, "messages": [{"role": "user", "content": "x"}]}""").prompt().options());
        assertEquals("thinking.budget_tokens", refused("""
                {"max_tokens": 1500, "thinking": {"type": "enabled", "budget_tokens": 2000}, "messages": [{"role": "user", "content": "x"}]}""").param());
        assertEquals("thinking.budget_tokens", refused("""
                {"max_tokens": 4000, "thinking": {"type": "enabled", "budget_tokens": 100}, "messages": [{"role": "user", "content": "x"}]}""").param());
    }

    @Test
    void outputFormatIsAGrammarOfTheWholeOutput() {
        StructuredOutput s = parse("""
                {"max_tokens": 50, "output_config": {"format": {"type": "json_schema", "schema": {"type": "object",
                 "properties": {"a": {"type": "integer"}}, "required": ["a"]}}, "effort": "low"},
                 "messages": [{"role": "user", "content": "x"}]}""").structured();
        assertTrue(!s.grammar().isEmpty());
        assertEquals(List.of("output_config.effort"), List.copyOf(parse("""
                {"max_tokens": 50, "output_config": {"effort": "low"}, "messages": [{"role": "user", "content": "x"}]}""").ignored()));
    }

    @Test
    void unknownFieldsAreNamedAsIgnored() {
        assertEquals(List.of("service_tier"), List.copyOf(parse("""
                {"max_tokens": 5, "service_tier": "auto", "messages": [{"role": "user", "content": "x"}]}""").ignored()));
    }

    @Test
    void rolesAndBlocksAreChecked() {
        assertEquals("messages[0].role", refused("""
                {"max_tokens": 5, "messages": [{"role": "system", "content": "x"}]}""").param());
        assertEquals("messages[0].content[0]", refused("""
                {"max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "a", "input": {}}]}]}""").param());
        assertEquals("messages[0].content[0].type", refused("""
                {"max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "hologram"}]}]}""").param());
    }

    /**
     * Tools are read by the one tool reader at Anthropic's own paths: an error names
     * {@code tools[i].input_schema}, and text the request itself wrote (a property named like a
     * chat path) comes back as written, not renamed.
     */
    @Test
    void toolErrorsNameAnthropicsFieldsAndLeaveTheRequestsOwnTextAlone() {
        ApiError schema = refused("""
                {"max_tokens": 5, "tools": [{"name": "a", "input_schema": {"type": "object"}},
                 {"name": "b", "input_schema": {"type": "array"}}], "messages": [{"role": "user", "content": "x"}]}""");
        assertEquals("tools[1].input_schema", schema.param());
        assertTrue(
                schema.getMessage().startsWith("tools[1].input_schema must be a JSON Schema of type \"object\""),
                schema.getMessage());
        ApiError name = refused("""
                {"max_tokens": 5, "tools": [{"name": "a b", "input_schema": {"type": "object"}}], "messages": [{"role": "user", "content": "x"}]}""");
        assertEquals("tools[0].name", name.param());
        assertTrue(name.getMessage().startsWith("tools[0].name is required"), name.getMessage());
        ApiError written = refused("""
                {"max_tokens": 5, "tools": [{"name": "a", "input_schema": {"type": "object", "properties":
                 {"tools[0].function.parameters": {"type": "nope"}}}}], "messages": [{"role": "user", "content": "x"}]}""");
        assertEquals("tools[0].input_schema", written.param());
        assertTrue(written.getMessage().contains("tools[0].function.parameters"), written.getMessage());
    }
}
