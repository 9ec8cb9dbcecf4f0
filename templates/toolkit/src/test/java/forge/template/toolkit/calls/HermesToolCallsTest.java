package forge.template.toolkit.calls;

import static forge.template.toolkit.calls.ToolCallDeltas.feedCharByChar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import forge.api.template.OutputParser;
import forge.api.template.ToolDefinition;
import forge.lib.text.PythonJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Hermes/Qwen syntax: what Qwen 2.5 and 3 write, and the generic family's ChatML and Jinja templates. */
class HermesToolCallsTest {

    private static final HermesToolCalls SYNTAX = HermesToolCalls.SYNTAX;
    private static final List<ToolDefinition> TOOLS = List.of(new ToolDefinition("get_weather", "", Map.of()));
    /** Qwen 3's reasoning markers. */
    private static final Reasoning THINK = new Reasoning("<think>", "</think>", false);

    /** Feeds the text one character at a time, as the worst tokenizer would. */
    private static List<ChatDelta> parseByChars(String text) {
        return feedCharByChar(SYNTAX.parser(Reasoning.NONE, TOOLS), text);
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

    private static List<ChatDelta.ToolCallDelta> calls(List<ChatDelta> deltas, StringBuilder content) {
        List<ChatDelta.ToolCallDelta> calls = new ArrayList<>();
        for (ChatDelta d : deltas) {
            switch (d) {
                case ChatDelta.ToolCallDelta c -> calls.add(c);
                case ChatDelta.Content c -> content.append(c.text());
                case ChatDelta.Reasoning r -> content.append(r.text());
            }
        }
        return calls;
    }

    @Test
    void readsCallsAsTheGrammarWritesThemStreamingTheArguments() {
        String args = "{\"city\": \"Paris \\\"}\\\" <x>\"}";
        List<ChatDelta> out = parseByChars("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": " + args
                + "}\n</tool_call>\n" + "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}\n</tool_call>");
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
    void parsesReasoningAndParallelToolCallsWhileStreaming() {
        List<ChatDelta> deltas = feedCharByChar(
                SYNTAX.parser(THINK, List.of()),
                "<think>\nweigh it\n</think>\n\nSure.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n"
                        + "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"x<y\"}}\n</tool_call>");
        ChatDelta.Joined out = ChatDelta.Joined.of(deltas);
        List<ChatDelta.ToolCallDelta> calls = out.calls();
        assertEquals("\nweigh it\n", out.reasoning());
        assertEquals("Sure.\n", out.content());
        List<ChatDelta.ToolCallDelta> merged = ToolCallDeltas.merge(calls);
        assertEquals(2, merged.size());
        assertEquals("get_weather", merged.get(0).name());
        assertEquals(Map.of("city", "Paris"), PythonJson.parse(merged.get(0).arguments()));
        assertEquals(1, merged.get(1).index());
        assertEquals(Map.of("q", "x<y"), PythonJson.parse(merged.get(1).arguments()));
        assertTrue(calls.size() > 2, "the arguments stream as they are written: " + calls.size() + " deltas");
    }

    @Test
    void keepsContentAroundCallsAndHeldBackPrefixes() {
        List<ChatDelta> out = parseByChars(
                "Let me check <tool_ <tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>");
        assertEquals("Let me check <tool_ ", content(out));
        assertEquals(1, ToolCallDeltas.merge(out).size());
    }

    @Test
    void aCallThatIsNotJsonStaysContent() {
        assertEquals("<tool_call>not json</tool_call>", content(parseByChars("<tool_call>not json</tool_call>")));
    }

    @Test
    void anUnclosedCallIsReadAtTheEnd() {
        List<ChatDelta> out =
                parseByChars("<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1, {\"b\": null}]}}");
        List<ChatDelta.ToolCallDelta> calls = ToolCallDeltas.merge(out);
        assertEquals(1, calls.size(), out.toString());
        assertEquals("{\"a\":[1,{\"b\":null}]}", calls.getFirst().arguments());
    }

    @Test
    void streamedArgumentsSurviveBracesQuotesAndTheClosingMarkerInsideStrings() {
        String args =
                "{\"code\": \"if (a) { b(\\\"}\\\"); } </tool_call> [\", \"n\": [1, {\"x\": []}], \"e\": \"\\u00e9\\\\\"}";
        StringBuilder content = new StringBuilder();
        List<ChatDelta.ToolCallDelta> deltas = calls(
                feedCharByChar(
                        SYNTAX.parser(Reasoning.NONE, List.of()),
                        "<tool_call>\n{\"name\": \"run\", \"arguments\": " + args + "}\n</tool_call>\nDone."),
                content);
        List<ChatDelta.ToolCallDelta> merged = ToolCallDeltas.merge(deltas);
        assertEquals(1, merged.size());
        assertEquals("run", merged.getFirst().name());
        assertEquals(PythonJson.parse(args), PythonJson.parse(merged.getFirst().arguments()));
        assertEquals("Done.", content.toString());

        // Fed at once, a call is one delta; a block of another shape is decoded whole, as before.
        List<ChatDelta> once = SYNTAX.parser(Reasoning.NONE, List.of())
                .feed("<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>");
        assertEquals(1, once.size());
        assertEquals("{\"a\":1}", ((ChatDelta.ToolCallDelta) once.getFirst()).arguments());
        List<ChatDelta.ToolCallDelta> reversed = ToolCallDeltas.merge(calls(
                feedCharByChar(
                        SYNTAX.parser(Reasoning.NONE, List.of()),
                        "<tool_call>\n{\"arguments\": {\"a\": 1}, \"name\": \"f\"}\n</tool_call>"),
                new StringBuilder()));
        assertEquals(
                List.of("f"),
                reversed.stream().map(ChatDelta.ToolCallDelta::name).toList());
        assertEquals("{\"a\":1}", reversed.getFirst().arguments());
    }

    @Test
    void aCallCutOffInItsArgumentsKeepsWhatWasStreamedAndLeaksNoMarkup() {
        StringBuilder content = new StringBuilder();
        List<ChatDelta.ToolCallDelta> merged = ToolCallDeltas.merge(calls(
                feedCharByChar(
                        SYNTAX.parser(Reasoning.NONE, List.of()),
                        "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"text\": \"half a sen"),
                content));
        assertEquals(1, merged.size());
        assertEquals("{\"text\":\"half a sen", merged.getFirst().arguments());
        assertEquals("", content.toString());
    }

    @Test
    void theGrammarNamesEveryToolWithItsArgumentRule() {
        List<ToolDefinition> tools =
                List.of(new ToolDefinition("a", "", Map.of()), new ToolDefinition("b\"q", "", Map.of()));
        String one = SYNTAX.grammar(tools, Map.of("a", "a-args", "b\"q", "bq-args"), false)
                .orElseThrow();
        assertTrue(one.startsWith("root ::= tc-call\n"), one);
        assertTrue(one.contains("\"\\\"a\\\", \\\"arguments\\\": \" a-args"), one);
        assertTrue(one.contains("\"\\\"b\\\\\\\"q\\\", \\\"arguments\\\": \" bq-args"), one);
        String many = SYNTAX.grammar(tools, Map.of("a", "a-args", "b\"q", "bq-args"), true)
                .orElseThrow();
        assertTrue(many.startsWith("root ::= tc-call (\"\\n\" tc-call)*\n"), many);
        assertEquals(List.of("<tool_call>"), SYNTAX.triggers());
    }

    @Test
    void grammarNamesEveryToolAndItsArgumentRule() {
        String g = ToolCallDeltas.grammarOfTwoTools(SYNTAX);
        assertTrue(g.startsWith("root ::= tc-call (\"\\n\" tc-call)*\n"), g);
        assertTrue(g.contains("\"\\\"f\\\", \\\"arguments\\\": \" f-args"), g);
        assertEquals(List.of("<tool_call>"), SYNTAX.triggers());
    }

    @Test
    void whatTheGrammarWritesIsWhatTheParserReads() {
        // The grammar's text with {} for the arguments rule, spelled out: one call, then two.
        String grammar =
                SYNTAX.grammar(TOOLS, Map.of("get_weather", "args"), true).orElseThrow();
        assertEquals(
                "root ::= tc-call (\"\\n\" tc-call)*\n"
                        + "tc-call ::= \"<tool_call>\\n{\\\"name\\\": \" (\"\\\"get_weather\\\", \\\"arguments\\\": \" args) \"}\\n</tool_call>\"\n",
                grammar);
        String one = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}\n</tool_call>";
        assertEquals(2, ToolCallDeltas.merge(parseByChars(one + "\n" + one)).size());
        assertTrue(SYNTAX.grammar(List.of(), Map.of(), true).isEmpty());
    }

    @Test
    void aJinjaTemplateUsesTheSyntaxWhenItWritesBothMarkers() {
        assertTrue(SYNTAX.usedBy("{{ '<tool_call>\\n' }}{{ tool_call | tojson }}{{ '\\n</tool_call>' }}"));
        assertFalse(SYNTAX.usedBy("<tool_call> without a close"));
        OutputParser p = SYNTAX.parser(Reasoning.NONE, TOOLS);
        assertEquals(List.of(new ChatDelta.Content("plain")), p.feed("plain"));
    }
}
