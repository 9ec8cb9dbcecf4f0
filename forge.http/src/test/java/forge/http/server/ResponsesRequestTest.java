package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.template.ChatMessage;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResponsesRequestTest {

    private final ResponseStore store = new ResponseStore();

    private ResponsesRequest parse(String json) {
        return ResponsesRequest.parse(Fields.of(Json.parse(json.getBytes(StandardCharsets.UTF_8))), store);
    }

    private ApiError refused(String json) {
        return assertThrows(ApiError.class, () -> parse(json));
    }

    @Test
    void llamaServersSamplersOrderAndFieldsAreReadAsOnTheChatRoute() {
        ResponsesRequest r = parse("{\"model\": \"m\", \"input\": \"hi\", \"samplers\": [\"top_k\", \"temperature\"],"
                + " \"typical_p\": 0.5}");
        assertEquals(
                List.of(forge.api.sampler.BuiltinStage.TOP_K, forge.api.sampler.BuiltinStage.TEMPERATURE),
                r.chat().sampling().samplers());
        assertEquals(0.5f, r.chat().sampling().typicalP());
        assertTrue(r.chat().ignored().isEmpty(), r.chat().ignored().toString());
        assertEquals(
                "samplers",
                refused("{\"model\": \"m\", \"input\": \"hi\", \"samplers\": [\"no_such_stage\"]}")
                        .toJson()
                        .get("error")
                        .get("param")
                        .asText());
    }

    @Test
    void aStringInputWithInstructions() {
        ResponsesRequest r = parse("""
                {"model": "m", "instructions": "Be brief.", "input": "Hello", "max_output_tokens": 20}""");
        assertEquals(
                List.of(ChatMessage.of(Role.SYSTEM, "Be brief."), ChatMessage.of(Role.USER, "Hello")),
                r.chat().prompt().messages());
        assertEquals(
                List.of(ChatMessage.of(Role.USER, "Hello")),
                r.conversation(),
                "instructions are not carried to the next turn");
        assertEquals(20, r.chat().maxTokens());
        assertTrue(r.store(), "store defaults to true");
    }

    @Test
    void itemsOfOneAssistantTurnMergeIntoOneMessage() {
        ResponsesRequest r = parse("""
                {"input": [
                  {"role": "developer", "content": "Use tools."},
                  {"role": "user", "content": [{"type": "input_text", "text": "Weather in "}, {"type": "input_text", "text": "Paris?"}]},
                  {"type": "reasoning", "id": "rs_1", "summary": [], "content": [{"type": "reasoning_text", "text": "Call it."}]},
                  {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Checking."}]},
                  {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\\"city\\":\\"Paris\\"}"},
                  {"type": "function_call_output", "call_id": "call_1", "output": "sunny"}]}""");
        List<ChatMessage> m = r.chat().prompt().messages();
        assertEquals(ChatMessage.of(Role.DEVELOPER, "Use tools."), m.get(0));
        assertEquals(ChatMessage.of(Role.USER, "Weather in Paris?"), m.get(1));
        assertEquals(MessagesRequestTest.checkingTheWeather("call_1", "Call it."), m.get(2));
        assertEquals(ChatMessage.toolResult("call_1", "sunny"), m.get(3));
        assertEquals(4, m.size());
    }

    @Test
    void previousResponseIdContinuesItsConversation() {
        ObjectNode stored = Json.MAPPER.createObjectNode().put("id", "resp_1");
        stored.putArray("output")
                .addObject()
                .put("id", "msg_1")
                .put("type", "message")
                .put("role", "assistant")
                .putArray("content")
                .addObject()
                .put("type", "output_text")
                .put("text", "Hi!");
        store.put(ResponseStore.entry(
                stored, List.of(ChatMessage.of(Role.USER, "Hello"), ChatMessage.of(Role.ASSISTANT, "Hi!"))));
        ResponsesRequest r = parse("""
                {"previous_response_id": "resp_1", "instructions": "Be brief.", "input": "And you?"}""");
        assertEquals(
                List.of(
                        ChatMessage.of(Role.SYSTEM, "Be brief."),
                        ChatMessage.of(Role.USER, "Hello"),
                        ChatMessage.of(Role.ASSISTANT, "Hi!"),
                        ChatMessage.of(Role.USER, "And you?")),
                r.chat().prompt().messages());
        assertEquals("resp_1", r.previous());
        // An item of a stored response can be referred to by its id, as the AI SDK does.
        ResponsesRequest ref = parse("""
                {"input": [{"role": "user", "content": "Hello"}, {"type": "item_reference", "id": "msg_1"},
                 {"role": "user", "content": "And you?"}]}""");
        assertEquals(
                ChatMessage.of(Role.ASSISTANT, "Hi!"),
                ref.chat().prompt().messages().get(1));
    }

    @Test
    void anUnknownPreviousResponseIsA400NamingIt() {
        ApiError e = refused("""
                {"previous_response_id": "resp_gone", "input": "x"}""");
        assertEquals(400, e.status());
        assertEquals("previous_response_not_found", e.code());
        assertEquals("previous_response_id", e.param());
        assertEquals("input[0].id", refused("""
                {"input": [{"type": "item_reference", "id": "msg_gone"}]}""").param());
    }

    @Test
    void functionToolsAreFlatAndHostedToolsAreNamedAsIgnored() {
        ResponsesRequest r = parse("""
                {"input": "x", "tools": [{"type": "web_search"}, {"type": "function", "name": "get_weather", "description": "d",
                 "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}, "strict": true}],
                 "tool_choice": {"type": "function", "name": "get_weather"}, "parallel_tool_calls": false}""");
        assertEquals("get_weather", r.chat().prompt().tools().getFirst().name());
        assertEquals(1, r.chat().prompt().tools().size());
        assertEquals(List.of("tools[0] (web_search)"), List.copyOf(r.chat().ignored()));
        assertEquals(StructuredOutput.ToolChoice.FUNCTION, r.chat().structured().toolChoice());
        assertEquals(false, r.chat().structured().parallel());
        ApiError e = refused("""
                {"input": "x", "tools": [{"type": "web_search"}, {"type": "function", "name": "bad name"}]}""");
        assertEquals("tools[1].name", e.param(), "named as the request wrote it");
    }

    @Test
    void textFormatAndReasoningEffort() {
        ResponsesRequest r = parse("""
                {"input": "x", "text": {"format": {"type": "json_schema", "name": "p", "schema": {"type": "object"}}, "verbosity": "low"},
                 "reasoning": {"effort": "none", "summary": "auto"}}""");
        assertTrue(!r.chat().structured().grammar().isEmpty());
        assertEquals(Map.of("enable_thinking", false), r.chat().prompt().options());
        assertEquals(
                List.of("reasoning.summary", "text.verbosity"),
                List.copyOf(r.chat().ignored()));
        assertEquals("text.format.type", refused("""
                {"input": "x", "text": {"format": {"type": "yaml"}}}""").param());
    }

    @Test
    void anImageThatIsNoDataUriIsA400NamingItsUrl() {
        ApiError e = refused("""
                {"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "data:..."}]}]}""");
        assertEquals("input[0].content[0].image_url", e.param());
        assertTrue(e.getMessage().contains("must be a base64 data URI"), e.getMessage());
        ApiError id = refused("""
                {"input": [{"role": "user", "content": [{"type": "input_image", "file_id": "file-1"}]}]}""");
        assertTrue(id.getMessage().contains("file_id is not supported"), id.getMessage());
    }

    /** Flat function tools are read at their own paths; a duplicate or a bad schema names the tool as written. */
    @Test
    void toolErrorsNameResponsesFields() {
        ApiError duplicate = refused("""
                {"input": "x", "tools": [{"type": "function", "name": "f"}, {"type": "file_search"}, {"type": "function", "name": "f"}]}""");
        assertEquals("tools[2].name", duplicate.param());
        ApiError schema = refused("""
                {"input": "x", "tools": [{"type": "web_search"}, {"type": "function", "name": "f", "parameters": {"type": "string"}}]}""");
        assertEquals("tools[1].parameters", schema.param());
        assertTrue(schema.getMessage().startsWith("tools[1].parameters must be a JSON Schema"), schema.getMessage());
        assertEquals("tools[0].strict", refused("""
                {"input": "x", "tools": [{"type": "function", "name": "f", "strict": "yes"}]}""").param());
    }

    static final String PATCH_TOOL = """
            {"type": "custom", "name": "apply_patch", "description": "Edit files.",
             "format": {"type": "grammar", "syntax": "lark", "definition": "start: \\"*** Begin Patch\\" /.+/\\n"}}""";

    @Test
    void customToolsAreFunctionsOfOneStringAndTheirCallsRoundTrip() {
        ResponsesRequest r = parse("""
                {"input": [
                  {"role": "user", "content": "Fix it"},
                  {"type": "custom_tool_call", "call_id": "call_1", "name": "apply_patch", "input": "*** Begin Patch\\n+x"},
                  {"type": "custom_tool_call_output", "call_id": "call_1", "output": [{"type": "input_text", "text": "Done!"}]}],
                 "tools": [%s, {"type": "custom", "name": "free"}],
                 "tool_choice": {"type": "custom", "name": "apply_patch"}}""".formatted(PATCH_TOOL));
        List<ChatMessage> m = r.chat().prompt().messages();
        assertEquals(
                new ToolCall("call_1", "apply_patch", "{\"input\":\"*** Begin Patch\\n+x\"}"),
                m.get(1).toolCalls().getFirst());
        assertEquals(Role.TOOL, m.get(2).role());
        assertEquals("call_1", m.get(2).toolCallId());
        assertEquals("Done!", m.get(2).content());
        assertEquals(java.util.Set.of("apply_patch", "free"), r.custom());
        assertEquals(
                List.of("apply_patch", "free"),
                r.chat().prompt().tools().stream()
                        .map(forge.api.template.ToolDefinition::name)
                        .toList());
        assertEquals(
                Map.of("type", "string"),
                ((Map<?, ?>) r.chat().prompt().tools().get(1).parameters().get("properties")).get("input"));
        assertEquals(StructuredOutput.ToolChoice.FUNCTION, r.chat().structured().toolChoice());
        assertEquals("apply_patch", r.chat().structured().function());
        assertEquals(
                java.util.Set.of("apply_patch"),
                r.chat().structured().freeform().keySet(),
                "a text tool has no grammar");
    }

    @Test
    void aGrammarOutsideTheSubsetIsA400NamingTheConstructAndItsLine() {
        ApiError e = refused("""
                {"input": "x", "tools": [{"type": "custom", "name": "t", "format": {"type": "grammar", "syntax": "lark",
                 "definition": "start: A\\n%declare A\\n"}}]}""");
        assertEquals("tools[0].format.definition", e.param());
        assertTrue(e.getMessage().contains("line 2") && e.getMessage().contains("'%declare'"), e.getMessage());
        assertEquals("tools[1].format.syntax", refused("""
                {"input": "x", "tools": [{"type": "web_search"}, {"type": "custom", "name": "t",
                 "format": {"type": "grammar", "syntax": "ebnf", "definition": "x"}}]}""").param());
    }

    @Test
    void toolTypesNotRunHereAreDroppedNamedAndExplainedToToolChoice() {
        ResponsesRequest r = parse("""
                {"input": "x", "tools": [{"type": "web_search"}, {"type": "local_shell"}, %s, {"type": "mcp", "server_label": "s"}]}""".formatted(PATCH_TOOL));
        assertEquals(
                List.of("tools[0] (web_search)", "tools[1] (local_shell)", "tools[3] (mcp)"),
                List.copyOf(r.chat().ignored()));
        assertEquals(
                "tools[0] (web_search), tools[1] (local_shell), tools[3] (mcp)",
                r.echo().get("metadata").get("forge_dropped_tools").asText());
        ApiError strict = assertThrows(
                ApiError.class, () -> Strictness.check(true, r.chat().ignored()));
        assertTrue(strict.getMessage().contains("'tools[0] (web_search)' is not supported"), strict.getMessage());

        ApiError required = refused("""
                {"input": "x", "tools": [{"type": "web_search"}, {"type": "file_search"}], "tool_choice": "required"}""");
        assertEquals("tool_choice", required.param());
        assertTrue(
                required.getMessage()
                        .startsWith("tool_choice 'required' needs 'tools'; dropped: tools[0] (web_search), "
                                + "tools[1] (file_search), tool types this server does not run"),
                required.getMessage());
        assertTrue(
                refused("""
                {"input": "x", "tools": [{"type": "web_search"}], "tool_choice": {"type": "web_search"}}""")
                        .getMessage()
                        .contains(
                                "asks for a 'web_search' tool, which this server does not run; dropped: tools[0] (web_search)"));
        assertTrue(refused("""
                {"input": "x", "tools": [{"type": "web_search"}], "tool_choice": {"type": "custom", "name": "apply_patch"}}""")
                .getMessage()
                .contains("names tool 'apply_patch', which is not in 'tools'; dropped: tools[0] (web_search)"));
        // With nothing dropped, no such note.
        assertEquals("tool_choice 'required' needs 'tools'", refused("""
                {"input": "x", "tool_choice": "required"}""").getMessage());
        assertTrue(parse("{\"input\": \"x\"}").echo().get("metadata").isEmpty());
    }

    @Test
    void seedAndLogitBiasAreReadAsOnTheChatRoute() {
        ResponsesRequest r = parse("{\"input\": \"x\", \"seed\": 7, \"logit_bias\": {\"12\": 5, \"13\": -100}}");
        assertEquals(7, r.chat().sampling().seed());
        assertEquals(
                Map.of(12, 5f, 13, Float.NEGATIVE_INFINITY), r.chat().sampling().logitBias());
        assertTrue(r.chat().ignored().isEmpty(), r.chat().ignored().toString());
        assertEquals(
                "logit_bias",
                refused("{\"input\": \"x\", \"logit_bias\": {\"a\": 1}}").param());
    }
}
