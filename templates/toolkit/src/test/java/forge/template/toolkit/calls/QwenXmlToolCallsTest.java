package forge.template.toolkit.calls;

import static forge.template.toolkit.calls.ToolCallDeltas.feedCharByChar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import forge.api.template.ToolDefinition;
import forge.lib.text.PythonJson;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Qwen 3.5's and Qwen3-Coder's XML calls, parsed back with schema types, and their grammar. */
class QwenXmlToolCallsTest {

    private static final QwenXmlToolCalls SYNTAX = QwenXmlToolCalls.SYNTAX;

    @SuppressWarnings("unchecked")
    private static final ToolDefinition WEATHER =
            new ToolDefinition("get_weather", "", (Map<String, Object>) PythonJson.parse("""
            {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "number"}, "limit": {"type": "integer"},
             "exact": {"type": "boolean"}, "where": {"type": "object"}, "tags": {"type": "array"}, "note": {"type": ["string", "null"]},
             "unit": {"enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}"""));

    @Test
    void parsesXmlCallsIntoJsonArgumentsTypedByTheSchema() {
        String output =
                "Let me check.\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nNew York\n</parameter>\n"
                        + "<parameter=days>\n2.5\n</parameter>\n<parameter=limit>\n3\n</parameter>\n<parameter=exact>\ntrue\n</parameter>\n"
                        + "<parameter=where>\n{\"lat\": 1}\n</parameter>\n<parameter=tags>\n[\"a\", \"b\"]\n</parameter>\n"
                        + "<parameter=note>\nnull\n</parameter>\n<parameter=unit>\ncelsius\n</parameter>\n<parameter=extra>\n42\n</parameter>\n"
                        + "</function>\n</tool_call>\n<tool_call>\n<function=get_weather>\n<parameter=city>\n123\nline two < three\n</parameter>\n"
                        + "<parameter=note>\nnot json\n</parameter>\n</function>\n</tool_call>";
        // Qwen3-Coder has no reasoning; Qwen 3.5 with thinking off has its markers but does not start inside them.
        for (Reasoning reasoning : List.of(Reasoning.NONE, new Reasoning("<think>", "</think>", false))) {
            String variant = reasoning.open().isEmpty() ? "qwen3-coder" : "qwen3.5";
            var parsed =
                    ToolCallDeltas.withoutReasoning(feedCharByChar(SYNTAX.parser(reasoning, List.of(WEATHER)), output));
            List<ChatDelta.ToolCallDelta> calls = parsed.calls();
            assertEquals("Let me check.\n\n", parsed.content(), variant);
            assertEquals(2, calls.size(), variant);
            assertEquals("get_weather", calls.get(0).name());
            assertEquals(
                    "{\"city\":\"New York\",\"days\":2.5,\"limit\":3,\"exact\":true,\"where\":{\"lat\":1},\"tags\":[\"a\",\"b\"],"
                            + "\"note\":null,\"unit\":\"celsius\",\"extra\":\"42\"}",
                    calls.get(0).arguments(),
                    variant);
            // A string parameter stays a string even when it looks like JSON; a string-or-null one keeps non-JSON text.
            assertEquals(
                    "{\"city\":\"123\\nline two < three\",\"note\":\"not json\"}",
                    calls.get(1).arguments(),
                    variant);
            assertEquals(1, calls.get(1).index());
        }
    }

    @Test
    void aToolTheRequestDoesNotOfferHasStringValuesAndBrokenMarkupStaysContent() {
        List<ChatDelta> deltas = feedCharByChar(
                SYNTAX.parser(Reasoning.NONE, List.of()),
                "<tool_call>\n<function=f>\n<parameter=n>\n3\n</parameter>\n</function>\n</tool_call>");
        assertEquals(
                List.of("{\"n\":\"3\"}"),
                ToolCallDeltas.merge(deltas).stream()
                        .map(ChatDelta.ToolCallDelta::arguments)
                        .toList());
        StringBuilder kept = new StringBuilder();
        feedCharByChar(SYNTAX.parser(Reasoning.NONE, List.of()), "<tool_call>\nno function\n</tool_call>")
                .forEach(d -> kept.append(((ChatDelta.Content) d).text()));
        assertEquals("<tool_call>\nno function\n</tool_call>", kept.toString());
    }

    @Test
    void grammarTypesEachParameter() {
        String g = SYNTAX.grammar(List.of(WEATHER), Map.of("get_weather", "ignored"), true)
                .orElseThrow();
        assertTrue(g.startsWith("root ::= tc-call (\"\\n\" tc-call)*\n"), g);
        assertTrue(g.contains("(\"<parameter=city>\\n\" tc-text \"\\n</parameter>\\n\") "), g);
        assertTrue(g.contains("(\"<parameter=days>\\n\" (tc-number) \"\\n</parameter>\\n\")?"), g);
        assertTrue(g.contains("(\"<parameter=unit>\\n\" (\"celsius\" | \"fahrenheit\") \"\\n</parameter>\\n\")?"), g);
        assertTrue(g.contains("(\"<parameter=note>\\n\" tc-text"), g);
        assertEquals(List.of("<tool_call>"), SYNTAX.triggers());
        assertTrue(SYNTAX.grammar(List.of(), Map.of(), true).isEmpty());
    }
}
