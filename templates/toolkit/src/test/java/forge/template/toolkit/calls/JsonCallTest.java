package forge.template.toolkit.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonCallTest {

    @Test
    void decodesANamedCallWithCompactArguments() {
        assertEquals(
                new ToolCall("", "f", "{\"a\":[1,2.0],\"b\":\"x y\"}"),
                JsonCall.decode(" {\"name\": \"f\", \"args\": {\"a\": [1, 2.0], \"b\": \"x y\"}} ", "args"));
        assertEquals(
                new ToolCall("", "f", "{}"),
                JsonCall.decode(" {\"name\": \"f\"} ", "args"),
                "no arguments: an empty object");
    }

    @Test
    void refusesWhatIsNotACall() {
        for (String bad : List.of(
                "{\"args\": {}}",
                "{\"name\": \"f\", \"args\": [1]}",
                "[1]",
                "{\"name\": 1}",
                "not json",
                "{\"name\": \"f\", \"args\": \"{}\"}")) {
            assertThrows(IllegalArgumentException.class, () -> JsonCall.decode(bad, "args"), bad);
        }
    }

    @Test
    void theLenientFormTakesTheFirstKeyPresentAndQuotedArguments() {
        assertEquals(
                new ToolCall("", "f", "{\"q\":\"x\"}"),
                JsonCall.decode(
                        "{\"type\": \"function\", \"name\": \"f\", \"parameters\": \"{\\\"q\\\": \\\"x\\\"}\"}",
                        List.of("parameters", "arguments"),
                        true));
        assertEquals(
                new ToolCall("", "f", "{\"a\":1}"),
                JsonCall.decode(
                        "{\"name\": \"f\", \"arguments\": {\"a\": 1}}", List.of("parameters", "arguments"), true));
        assertThrows(
                IllegalArgumentException.class,
                () -> JsonCall.decode("{\"name\": \"f\", \"arguments\": \"[1]\"}", List.of("arguments"), true));
    }

    @Test
    void theRuleWritesEachToolsNameQuotedAsJsonDumpsDoesWithItsArgumentRule() {
        List<ToolDefinition> tools =
                List.of(new ToolDefinition("f", "", Map.of()), new ToolDefinition("b\"q", "", Map.of()));
        assertEquals(
                "tc-call ::= \"<c>{\\\"name\\\": \" (\"\\\"f\\\", \\\"k\\\": \" f-args | \"\\\"b\\\\\\\"q\\\", \\\"k\\\": \" bq-args)"
                        + " \"}</c>\"\n",
                JsonCall.rule("<c>", "k", "</c>", tools, Map.of("f", "f-args", "b\"q", "bq-args")));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> JsonCall.rule("", "k", "", tools, Map.of("f", "f-args")));
        assertEquals("no argument rule for tool b\"q", e.getMessage());
    }
}
