package forge.template.generic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.OutputParser;
import forge.api.template.Role;
import forge.api.template.ToolDefinition;
import forge.template.testkit.OutputFeeds;
import forge.template.testkit.ToolCallDeltas;
import forge.template.toolkit.PythonJson;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HermesToolCallsTest {

    private static final ChatPrompt WITH_TOOLS = new ChatPrompt(List.of(ChatMessage.of(Role.USER, "q")),
            List.of(new ToolDefinition("get_weather", "", Map.of())), true, Map.of());

    /** Feeds the text one character at a time, as the worst tokenizer would. */
    private static List<ChatDelta> parseByChars(String text) {
        return OutputFeeds.feedCharByChar(ChatMlTemplate.INSTANCE.parser(WITH_TOOLS), text);
    }

    private static String content(List<ChatDelta> deltas) {
        StringBuilder sb = new StringBuilder();
        deltas.forEach(d -> {
            if (d instanceof ChatDelta.Content c) {
                sb.append(c.text());
            }
        });
        return sb.toString();
    }

    @Test
    void readsCallsAsTheGrammarWritesThemStreamingTheArguments() {
        String args = "{\"city\": \"Paris \\\"}\\\" <x>\"}";
        List<ChatDelta> out = parseByChars("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": " + args + "}\n</tool_call>\n"
                + "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}\n</tool_call>");
        assertTrue(out.stream().allMatch(d -> d instanceof ChatDelta.ToolCallDelta), out.toString());
        assertTrue(out.size() > 2, "the arguments stream: " + out);
        List<ChatDelta.ToolCallDelta> calls = ToolCallDeltas.merge(out);
        assertEquals(2, calls.size(), out.toString());
        ChatDelta.ToolCallDelta first = calls.get(0);
        assertEquals(0, first.index());
        assertEquals("get_weather", first.name());
        assertEquals(PythonJson.parse(args), PythonJson.parse(first.arguments()));
        assertTrue(first.id().startsWith("call_"));
        ChatDelta.ToolCallDelta second = calls.get(1);
        assertEquals(1, second.index());
        assertEquals("{}", second.arguments());
    }

    @Test
    void keepsContentAroundCallsAndHeldBackPrefixes() {
        List<ChatDelta> out = parseByChars("Let me check <tool_ <tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>");
        assertEquals("Let me check <tool_ ", content(out));
        assertEquals(1, ToolCallDeltas.merge(out).size());
    }

    @Test
    void aCallThatIsNotJsonStaysContent() {
        assertEquals("<tool_call>not json</tool_call>", content(parseByChars("<tool_call>not json</tool_call>")));
    }

    @Test
    void anUnclosedCallIsReadAtTheEnd() {
        List<ChatDelta> out = parseByChars("<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1, {\"b\": null}]}}");
        List<ChatDelta.ToolCallDelta> calls = ToolCallDeltas.merge(out);
        assertEquals(1, calls.size(), out.toString());
        assertEquals("{\"a\":[1,{\"b\":null}]}", calls.getFirst().arguments());
    }

    @Test
    void withoutToolsEverythingIsContent() {
        OutputParser p = ChatMlTemplate.INSTANCE.parser(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q"))));
        String text = "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>";
        assertEquals(List.of(new ChatDelta.Content(text)), p.feed(text));
    }

    @Test
    void theGrammarNamesEveryToolWithItsArgumentRule() {
        List<ToolDefinition> tools = List.of(new ToolDefinition("a", "", Map.of()), new ToolDefinition("b\"q", "", Map.of()));
        String one = ChatMlTemplate.INSTANCE.toolCallGrammar(tools, Map.of("a", "a-args", "b\"q", "bq-args"), false).orElseThrow();
        assertTrue(one.startsWith("root ::= tc-call\n"), one);
        assertTrue(one.contains("\"\\\"a\\\", \\\"arguments\\\": \" a-args"), one);
        assertTrue(one.contains("\"\\\"b\\\\\\\"q\\\", \\\"arguments\\\": \" bq-args"), one);
        String many = ChatMlTemplate.INSTANCE.toolCallGrammar(tools, Map.of("a", "a-args", "b\"q", "bq-args"), true).orElseThrow();
        assertTrue(many.startsWith("root ::= tc-call (\"\\n\" tc-call)*\n"), many);
        assertEquals(List.of("<tool_call>"), ChatMlTemplate.INSTANCE.toolCallTriggers());
    }
}
