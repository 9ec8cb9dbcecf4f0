package forge.template.toolkit.calls;

import static forge.template.toolkit.calls.ToolCallDeltas.feedCharByChar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import forge.api.template.OutputParser;
import forge.lib.text.PythonJson;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Llama 3.x's JSON calls and {@code <|python_tag|>} calls. */
class LlamaToolCallsTest {

    private static final LlamaToolCalls SYNTAX = LlamaToolCalls.SYNTAX;

    private static OutputParser parser() {
        return SYNTAX.parser(Reasoning.NONE, List.of());
    }

    /** The one call the deltas make, its arguments streamed or whole; no other delta. */
    private static ChatDelta.ToolCallDelta onlyCall(List<ChatDelta> deltas) {
        assertTrue(deltas.stream().allMatch(d -> d instanceof ChatDelta.ToolCallDelta), deltas.toString());
        List<ChatDelta.ToolCallDelta> calls = ToolCallDeltas.merge(deltas);
        assertEquals(1, calls.size(), deltas.toString());
        return calls.getFirst();
    }

    @Test
    void parsesJsonCallsWhileStreaming() {
        var call = onlyCall(feedCharByChar(
                parser(), "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Zürich\", \"days\": 2.0}}"));
        assertEquals("get_weather", call.name());
        assertEquals(0, call.index());
        assertTrue(call.id().startsWith("call_"));
        assertEquals(Map.of("city", "Zürich", "days", 2.0), PythonJson.parse(call.arguments()));
        List<ChatDelta> streamed = feedCharByChar(
                parser(), "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Zürich\", \"days\": 2.0}}");
        assertTrue(streamed.size() > 1, "the parameters stream as they are written: " + streamed);
        // Text after the call's object is kept; the <|python_tag|> form streams too.
        List<ChatDelta> trailing = feedCharByChar(parser(), "{\"name\": \"f\", \"parameters\": {\"a\": [1]}} Done.");
        assertEquals("{\"a\":[1]}", ToolCallDeltas.merge(trailing).getFirst().arguments());
        assertEquals(new ChatDelta.Content("Done."), trailing.getLast());
        var tagged =
                onlyCall(feedCharByChar(parser(), "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"b\": \"}\"}}"));
        assertEquals(Map.of("b", "}"), PythonJson.parse(tagged.arguments()));
        var typed = onlyCall(feedCharByChar(
                parser(),
                "\n{\"type\": \"function\", \"name\": \"search\", \"parameters\": \"{\\\"query\\\": \\\"x\\\"}\"}"));
        assertEquals("{\"query\":\"x\"}", typed.arguments());
        // A JSON answer that is not a call stays content, whole.
        assertEquals(List.of(new ChatDelta.Content("{\"a\": 1}")), feedCharByChar(parser(), "{\"a\": 1}"));
    }

    @Test
    void parsesPythonTagCallsWhileStreaming() {
        var builtin =
                onlyCall(feedCharByChar(parser(), "<|python_tag|>brave_search.call(query=\"a, \\\"b\\\"\", n=3)"));
        assertEquals("brave_search", builtin.name());
        assertEquals("{\"query\":\"a, \\\"b\\\"\",\"n\":3}", builtin.arguments());
        var code = onlyCall(feedCharByChar(parser(), "<|python_tag|>print(1 + 1)"));
        assertEquals("python", code.name());
        assertEquals(Map.of("code", "print(1 + 1)"), PythonJson.parse(code.arguments()));
        List<ChatDelta> mixed =
                feedCharByChar(parser(), "Let me run it. <|python_tag|>{\"name\": \"f\", \"parameters\": {}}");
        assertEquals(new ChatDelta.Content("L"), mixed.getFirst());
        StringBuilder content = new StringBuilder();
        mixed.stream()
                .filter(d -> d instanceof ChatDelta.Content)
                .forEach(d -> content.append(((ChatDelta.Content) d).text()));
        assertEquals("Let me run it. ", content.toString());
        assertEquals("f", ToolCallDeltas.merge(mixed).getFirst().name());
    }

    @Test
    void grammarWritesTheJsonCallTheParserReads() {
        String g = ToolCallDeltas.grammarOfTwoTools(SYNTAX);
        assertEquals(
                "root ::= \"<|python_tag|>\"? tc-call\n"
                        + "tc-call ::= \"{\\\"name\\\": \" (\"\\\"f\\\", \\\"parameters\\\": \" f-args | \"\\\"g\\\", \\\"parameters\\\": \" g-args) \"}\"\n",
                g);
        assertEquals(List.of("{\"name\": ", "<|python_tag|>"), SYNTAX.triggers());
        // What the grammar admits (with {} as the arguments) is a call to the parser.
        var call = onlyCall(feedCharByChar(parser(), "{\"name\": \"g\", \"parameters\": {}}"));
        assertEquals("g", call.name());
        assertTrue(SYNTAX.grammar(List.of(), Map.of(), true).isEmpty());
    }
}
