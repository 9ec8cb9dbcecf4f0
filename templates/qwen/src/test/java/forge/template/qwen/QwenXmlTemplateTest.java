package forge.template.qwen;

import static forge.template.testkit.OutputFeeds.feedCharByChar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.Role;
import forge.api.template.TemplateClaim;
import forge.api.template.TemplateContext;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.template.toolkit.PythonJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Qwen 3.5 and Qwen3-Coder: XML tool calls parsed back with schema types, their grammar, and claims. */
class QwenXmlTemplateTest {

    private static final ToolDefinition WEATHER = new ToolDefinition("get_weather", "", (Map<String, Object>) PythonJson.parse("""
            {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "number"}, "limit": {"type": "integer"},
             "exact": {"type": "boolean"}, "where": {"type": "object"}, "tags": {"type": "array"}, "note": {"type": ["string", "null"]},
             "unit": {"enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}"""));

    private static ModelDescriptor model(String id, Map<String, Object> meta) {
        return new ModelDescriptor(id, List.of(), Path.of(id + ".gguf"), new ModelMetadata(meta, Map.of()));
    }

    private static ChatTemplate create(String variant) {
        return new QwenTemplates().create(variant, new TemplateContext(model("m", Map.of()), "", "<|im_end|>"));
    }

    private static ChatPrompt withTools() {
        return new ChatPrompt(List.of(ChatMessage.of(Role.USER, "q")), List.of(WEATHER), true, Map.of());
    }

    @Test
    void parsesXmlCallsIntoJsonArgumentsTypedByTheSchema() {
        String output = "Let me check.\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nNew York\n</parameter>\n"
                + "<parameter=days>\n2.5\n</parameter>\n<parameter=limit>\n3\n</parameter>\n<parameter=exact>\ntrue\n</parameter>\n"
                + "<parameter=where>\n{\"lat\": 1}\n</parameter>\n<parameter=tags>\n[\"a\", \"b\"]\n</parameter>\n"
                + "<parameter=note>\nnull\n</parameter>\n<parameter=unit>\ncelsius\n</parameter>\n<parameter=extra>\n42\n</parameter>\n"
                + "</function>\n</tool_call>\n<tool_call>\n<function=get_weather>\n<parameter=city>\n123\nline two < three\n</parameter>\n"
                + "<parameter=note>\nnot json\n</parameter>\n</function>\n</tool_call>";
        for (String variant : List.of("qwen3-coder", "qwen3.5")) {
            ChatTemplate t = create(variant);
            ChatPrompt prompt = variant.equals("qwen3.5")
                    ? new ChatPrompt(List.of(ChatMessage.of(Role.USER, "q")), List.of(WEATHER), true, Map.of("enable_thinking", false))
                    : withTools();
            List<ChatDelta> deltas = feedCharByChar(t.parser(prompt), output);
            StringBuilder content = new StringBuilder();
            List<ChatDelta.ToolCallDelta> calls = new ArrayList<>();
            for (ChatDelta d : deltas) {
                switch (d) {
                    case ChatDelta.Content c -> content.append(c.text());
                    case ChatDelta.ToolCallDelta c -> calls.add(c);
                    case ChatDelta.Reasoning r -> throw new AssertionError("reasoning " + r);
                }
            }
            assertEquals("Let me check.\n\n", content.toString(), variant);
            assertEquals(2, calls.size(), variant);
            assertEquals("get_weather", calls.get(0).name());
            assertEquals("{\"city\":\"New York\",\"days\":2.5,\"limit\":3,\"exact\":true,\"where\":{\"lat\":1},\"tags\":[\"a\",\"b\"],"
                    + "\"note\":null,\"unit\":\"celsius\",\"extra\":\"42\"}", calls.get(0).arguments(), variant);
            // A string parameter stays a string even when it looks like JSON; a string-or-null one keeps non-JSON text.
            assertEquals("{\"city\":\"123\\nline two < three\",\"note\":\"not json\"}", calls.get(1).arguments(), variant);
            assertEquals(1, calls.get(1).index());
        }
    }

    @Test
    void qwen35StartsInReasoningAndRoundTripsItsOwnRender() {
        ChatTemplate t = create("qwen3.5");
        List<ChatDelta> deltas = feedCharByChar(t.parser(withTools()), "plan\n</think>\n\n<tool_call>\n<function=get_weather>\n"
                + "<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>");
        assertEquals(List.of("plan\n"), deltas.stream().filter(d -> d instanceof ChatDelta.Reasoning).map(d -> ((ChatDelta.Reasoning) d).text())
                .reduce((a, b) -> a + b).stream().toList());
        ChatDelta.ToolCallDelta call = (ChatDelta.ToolCallDelta) deltas.getLast();
        // What the parser returns renders back to the text the model wrote.
        String rendered = t.render(new ChatPrompt(List.of(ChatMessage.of(Role.USER, "q"),
                new ChatMessage(Role.ASSISTANT, "", "", List.of(new ToolCall("c1", call.name(), call.arguments())), "", "plan")),
                List.of(WEATHER), false, Map.of()));
        assertTrue(rendered.endsWith("<think>\nplan\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n"
                + "</function>\n</tool_call><|im_end|>\n"), rendered);
    }

    @Test
    void grammarTypesEachParameter() {
        String g = create("qwen3-coder").toolCallGrammar(List.of(WEATHER), Map.of("get_weather", "ignored"), true).orElseThrow();
        assertTrue(g.startsWith("root ::= tc-call (\"\\n\" tc-call)*\n"), g);
        assertTrue(g.contains("(\"<parameter=city>\\n\" tc-text \"\\n</parameter>\\n\") "), g);
        assertTrue(g.contains("(\"<parameter=days>\\n\" (tc-number) \"\\n</parameter>\\n\")?"), g);
        assertTrue(g.contains("(\"<parameter=unit>\\n\" (\"celsius\" | \"fahrenheit\") \"\\n</parameter>\\n\")?"), g);
        assertTrue(g.contains("(\"<parameter=note>\\n\" tc-text"), g);
        assertEquals(List.of("<tool_call>"), create("qwen3.5").toolCallTriggers());
    }

    @Test
    void claimsByFingerprintArchitectureAndName() throws Exception {
        QwenTemplates p = new QwenTemplates();
        Path templates = Path.of(System.getProperty("forge.llama.home"), "src/models/templates");
        TemplateClaim c35 = p.claim(model("x", Map.of("tokenizer.chat_template", Files.readString(templates.resolve("Qwen3.5-4B.jinja"))))).orElseThrow();
        assertEquals("qwen3.5", c35.variant());
        assertEquals(TemplateClaim.Rule.METADATA, c35.rule());
        assertEquals("qwen3-coder", p.claim(model("x", Map.of("tokenizer.chat_template",
                Files.readString(templates.resolve("Qwen3-Coder.jinja"))))).orElseThrow().variant());
        assertEquals("qwen3.5", p.claim(model("x", Map.of("general.architecture", "qwen35moe"))).orElseThrow().variant());
        // Qwen3-Coder-30B-A3B is a qwen3moe model: its name outranks the architecture's guess.
        assertEquals("qwen3-coder", p.claim(model("x", Map.of("general.architecture", "qwen3moe",
                "general.name", "Qwen3 Coder 30B A3B Instruct"))).orElseThrow().variant());
        assertEquals("qwen3", p.claim(model("x", Map.of("general.architecture", "qwen3moe"))).orElseThrow().variant());
        assertEquals("qwen3-coder", p.claim(model("Qwen3-Coder-30B-A3B-Instruct-Q4_K_M", Map.of())).orElseThrow().variant());
        assertEquals("qwen3.5", p.claim(model("Qwen3.5-4B-Q8_0", Map.of())).orElseThrow().variant());
        assertEquals("qwen2.5", p.claim(model("Qwen2.5-Coder-7B-Instruct-Q4_K_M", Map.of())).orElseThrow().variant());
    }
}
