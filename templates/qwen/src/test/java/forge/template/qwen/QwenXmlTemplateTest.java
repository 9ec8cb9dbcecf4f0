package forge.template.qwen;

import static forge.template.testkit.Models.model;
import static forge.template.testkit.OfficialTemplates.official;
import static forge.template.testkit.OutputFeeds.afterCall;
import static forge.template.testkit.OutputFeeds.feedCharByChar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.Role;
import forge.api.template.TemplateClaim;
import forge.api.template.TemplateContext;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.lib.text.PythonJson;
import forge.template.toolkit.calls.QwenXmlToolCalls;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Qwen 3.5 and Qwen3-Coder: reasoning, their XML tool-call syntax (tested in the toolkit) wired in, and claims. */
class QwenXmlTemplateTest {

    @SuppressWarnings("unchecked") // a JSON object literal parses to a map
    private static final ToolDefinition WEATHER =
            new ToolDefinition("get_weather", "", (Map<String, Object>) PythonJson.parse("""
            {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "number"}, "limit": {"type": "integer"},
             "exact": {"type": "boolean"}, "where": {"type": "object"}, "tags": {"type": "array"}, "note": {"type": ["string", "null"]},
             "unit": {"enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}"""));

    private static ChatTemplate create(String variant) {
        return new QwenTemplates().create(variant, new TemplateContext(model("m", Map.of()), "", "<|im_end|>"));
    }

    private static ChatPrompt withTools() {
        return new ChatPrompt(List.of(ChatMessage.of(Role.USER, "q")), List.of(WEATHER), true, Map.of());
    }

    @Test
    void qwen35StartsInReasoningAndRoundTripsItsOwnRender() {
        ChatTemplate t = create("qwen3.5");
        List<ChatDelta> deltas = feedCharByChar(
                t.parser(withTools()),
                "plan\n</think>\n\n<tool_call>\n<function=get_weather>\n"
                        + "<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>");
        assertEquals(
                List.of("plan\n"),
                deltas.stream()
                        .filter(d -> d instanceof ChatDelta.Reasoning)
                        .map(d -> ((ChatDelta.Reasoning) d).text())
                        .reduce((a, b) -> a + b)
                        .stream()
                        .toList());
        ChatDelta.ToolCallDelta call = (ChatDelta.ToolCallDelta) deltas.getLast();
        // What the parser returns renders back to the text the model wrote.
        String rendered =
                t.render(afterCall(new ToolCall("c1", call.name(), call.arguments()), "plan", List.of(WEATHER)));
        assertTrue(
                rendered.endsWith(
                        "<think>\nplan\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n"
                                + "</function>\n</tool_call><|im_end|>\n"),
                rendered);
    }

    @Test
    void callsAreTheXmlSyntaxTypedByTheOfferedTools() {
        for (String variant : List.of("qwen3-coder", "qwen3.5")) {
            ChatTemplate t = create(variant);
            assertEquals(
                    QwenXmlToolCalls.SYNTAX.grammar(List.of(WEATHER), Map.of(), true),
                    t.toolCallGrammar(List.of(WEATHER), Map.of(), true));
            assertEquals(QwenXmlToolCalls.SYNTAX.triggers(), t.toolCallTriggers());
            ChatPrompt prompt =
                    new ChatPrompt(List.of(ChatMessage.of(Role.USER, "q")), List.of(WEATHER), false, Map.of());
            List<ChatDelta> deltas = feedCharByChar(
                    t.parser(prompt),
                    "<tool_call>\n<function=get_weather>\n<parameter=days>\n2\n</parameter>\n"
                            + "</function>\n</tool_call>");
            assertEquals("{\"days\":2}", ((ChatDelta.ToolCallDelta) deltas.getFirst()).arguments(), variant);
        }
    }

    @Test
    void claimsByFingerprintArchitectureAndName() throws Exception {
        QwenTemplates p = new QwenTemplates();
        TemplateClaim c35 = p.claim(model("x", Map.of("tokenizer.chat_template", official("Qwen3.5-4B.jinja"))))
                .orElseThrow();
        assertEquals("qwen3.5", c35.variant());
        assertEquals(TemplateClaim.Rule.METADATA, c35.rule());
        assertEquals(
                "qwen3-coder",
                p.claim(model("x", Map.of("tokenizer.chat_template", official("Qwen3-Coder.jinja"))))
                        .orElseThrow()
                        .variant());
        assertEquals(
                "qwen3.5",
                p.claim(model("x", Map.of("general.architecture", "qwen35moe")))
                        .orElseThrow()
                        .variant());
        // Qwen3-Coder-30B-A3B is a qwen3moe model: its name outranks the architecture's guess.
        assertEquals(
                "qwen3-coder",
                p.claim(model(
                                "x",
                                Map.of(
                                        "general.architecture",
                                        "qwen3moe",
                                        "general.name",
                                        "Qwen3 Coder 30B A3B Instruct")))
                        .orElseThrow()
                        .variant());
        assertEquals(
                "qwen3",
                p.claim(model("x", Map.of("general.architecture", "qwen3moe")))
                        .orElseThrow()
                        .variant());
        assertEquals(
                "qwen3-coder",
                p.claim(model("Qwen3-Coder-30B-A3B-Instruct-Q4_K_M", Map.of()))
                        .orElseThrow()
                        .variant());
        assertEquals(
                "qwen3.5",
                p.claim(model("Qwen3.5-4B-Q8_0", Map.of())).orElseThrow().variant());
        assertEquals(
                "qwen2.5",
                p.claim(model("Qwen2.5-Coder-7B-Instruct-Q4_K_M", Map.of()))
                        .orElseThrow()
                        .variant());
    }
}
