package forge.template.toolkit.calls;

import static forge.template.toolkit.calls.ToolCallDeltas.feedCharByChar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import forge.api.template.OutputParser;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Kimi K2's section of calls with {@code functions.NAME:IDX} ids. */
class KimiToolCallsTest {

    private static final KimiToolCalls SYNTAX = KimiToolCalls.SYNTAX;

    private static OutputParser parser() {
        return SYNTAX.parser(Reasoning.NONE, List.of());
    }

    @Test
    void parsesASectionOfCallsKeepingTheirIds() {
        String out =
                "Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
                        + "{\"city\": \"Paris\"}<|tool_call_end|><|tool_call_begin|>functions.search:1<|tool_call_argument_begin|>"
                        + "{\"query\": \"a<|b\", \"n\": 2}<|tool_call_end|><|tool_calls_section_end|>";
        var parsed = ToolCallDeltas.withoutReasoning(feedCharByChar(parser(), out));
        assertEquals("Checking.", parsed.content());
        assertEquals(
                List.of(
                        new ChatDelta.ToolCallDelta(
                                0, "functions.get_weather:0", "get_weather", "{\"city\":\"Paris\"}"),
                        new ChatDelta.ToolCallDelta(1, "functions.search:1", "search", "{\"query\":\"a<|b\",\"n\":2}")),
                parsed.calls());
        // A section cut short by the end of generation still yields its call.
        List<ChatDelta> cut = feedCharByChar(
                parser(),
                "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
                        + "<|tool_call_argument_begin|>{}<|tool_call_end|>");
        assertEquals(List.of(new ChatDelta.ToolCallDelta(0, "functions.f:0", "f", "{}")), cut);
        // Markup that is not a call is kept as text, not dropped.
        List<ChatDelta> bad = feedCharByChar(parser(), "<|tool_calls_section_begin|>oops<|tool_calls_section_end|>");
        assertEquals(
                "<|tool_calls_section_begin|>oops<|tool_calls_section_end|>",
                bad.stream().map(d -> ((ChatDelta.Content) d).text()).reduce("", String::concat));
    }

    @Test
    void grammarWritesTheSectionAndUsesTheArgumentRules() {
        String g = ToolCallDeltas.grammarOfTwoTools(SYNTAX);
        assertTrue(
                g.startsWith(
                        "root ::= \"<|tool_calls_section_begin|>\" tc-call tc-call* \"<|tool_calls_section_end|>\"\n"),
                g);
        assertTrue(g.contains("\"f:\" tc-index \"<|tool_call_argument_begin|>\" f-args | \"g:\" tc-index"), g);
        assertEquals(List.of("<|tool_calls_section_begin|>"), SYNTAX.triggers());
        assertTrue(SYNTAX.grammar(List.of(), Map.of(), true).isEmpty());
    }
}
