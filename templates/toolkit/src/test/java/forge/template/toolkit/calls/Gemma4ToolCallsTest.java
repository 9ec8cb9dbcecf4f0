package forge.template.toolkit.calls;

import static forge.template.toolkit.calls.ToolCallDeltas.feedCharByChar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import forge.api.template.ToolDefinition;
import forge.lib.text.PythonJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Gemma 4's {@code <|tool_call>call:NAME{...}<tool_call|>} calls in its own notation. */
class Gemma4ToolCallsTest {

    private static final Gemma4ToolCalls SYNTAX = Gemma4ToolCalls.SYNTAX;
    /** Gemma 4's thought channel, as its template marks it. */
    private static final Reasoning THOUGHT = new Reasoning("<|channel>thought", "<channel|>", false);

    @Test
    void parsesCallsBesideTheThoughtWhileStreaming() {
        List<ChatDelta> deltas = feedCharByChar(
                SYNTAX.parser(THOUGHT, List.of()),
                "<|channel>thought\nNeed weather.<channel|>Checking."
                        + "<|tool_call>call:get_weather{city:<|\"|>Zürich, \"CH\"<|\"|>,days:2.0,"
                        + "opts:{deep:[true,null,None],n:-3}}<tool_call|><|tool_call>call:search{query:<|\"|>a<b<|\"|>}<tool_call|>");
        StringBuilder content = new StringBuilder();
        List<ChatDelta.ToolCallDelta> calls = new ArrayList<>();
        for (ChatDelta d : deltas) {
            switch (d) {
                case ChatDelta.Reasoning r -> {}
                case ChatDelta.Content c -> content.append(c.text());
                case ChatDelta.ToolCallDelta c -> calls.add(c);
            }
        }
        assertEquals("Checking.", content.toString());
        assertEquals(2, calls.size());
        assertEquals("get_weather", calls.get(0).name());
        assertEquals(
                "{\"city\":\"Zürich, \\\"CH\\\"\",\"days\":2.0,\"opts\":{\"deep\":[true,null,null],\"n\":-3}}",
                calls.get(0).arguments());
        assertEquals("search", calls.get(1).name());
        assertEquals(1, calls.get(1).index());
        assertEquals(Map.of("query", "a<b"), PythonJson.parse(calls.get(1).arguments()));
        // Broken markup is kept as content rather than lost.
        StringBuilder kept = new StringBuilder();
        feedCharByChar(SYNTAX.parser(THOUGHT, List.of()), "<|tool_call>call:oops<tool_call|>")
                .forEach(d -> kept.append(((ChatDelta.Content) d).text()));
        assertEquals("<|tool_call>call:oops<tool_call|>", kept.toString());
    }

    @Test
    void readsEscapedKeysEmptyContainersAndRefusesWhatIsNotACall() {
        ChatDelta.ToolCallDelta c = (ChatDelta.ToolCallDelta) SYNTAX.parser(Reasoning.NONE, List.of())
                .feed("<|tool_call>call:f{<|\"|>k<|\"|>:{},l:[],e:1e3}<tool_call|>")
                .getFirst();
        assertEquals("{\"k\":{},\"l\":[],\"e\":1000.0}", c.arguments());
        for (String bad : List.of(
                "f{}",
                "call:f",
                "call:{a:1}",
                "call:f{a:1} x",
                "call:f{a:<|\"|>open}",
                "call:f{a:bare}",
                "call:f{:1}")) {
            String text = Gemma4ToolCalls.CALL_OPEN + bad + Gemma4ToolCalls.CALL_CLOSE;
            assertEquals(
                    List.of(new ChatDelta.Content(text)),
                    SYNTAX.parser(Reasoning.NONE, List.of()).feed(text),
                    bad);
        }
    }

    @Test
    void grammarAndTriggersMatchTheParser() {
        String g = SYNTAX.grammar(
                        List.of(new ToolDefinition("f", "", Map.of()), new ToolDefinition("g", "", Map.of())),
                        Map.of(),
                        true)
                .orElseThrow();
        assertTrue(
                g.startsWith(
                        "root ::= tc-call+\ntc-call ::= \"<|tool_call>call:\" (\"f\" | \"g\") tc-dict \"<tool_call|>\"\n"),
                g);
        assertEquals(List.of("<|tool_call>"), SYNTAX.triggers());
        assertTrue(SYNTAX.grammar(List.of(new ToolDefinition("f", "", Map.of())), Map.of(), false)
                .orElseThrow()
                .startsWith("root ::= tc-call\n"));
        assertTrue(SYNTAX.grammar(List.of(), Map.of(), true).isEmpty());
    }
}
