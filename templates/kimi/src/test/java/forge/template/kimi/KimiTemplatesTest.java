package forge.template.kimi;

import static forge.template.testkit.OutputFeeds.feedCharByChar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.Role;
import forge.api.template.TemplateClaim;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.template.testkit.ChatTemplateContract;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KimiTemplatesTest implements ChatTemplateContract {

    @Override
    public ChatTemplateProvider provider() {
        return new KimiTemplates();
    }

    private static ModelDescriptor model(String id, Map<String, Object> meta) {
        return new ModelDescriptor(id, List.of(), Path.of(id + ".gguf"), new ModelMetadata(meta, Map.of()));
    }

    @Test
    void parsesParallelSectionCallsWithKimiIdsWhileStreaming() {
        ChatTemplate t = provider().create("kimi-k2-instruct", context("kimi-k2-instruct"));
        ChatPrompt prompt = ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q")));
        String out = "Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
                + "{\"city\": \"Paris\"}<|tool_call_end|><|tool_call_begin|>functions.search:1<|tool_call_argument_begin|>"
                + "{\"query\": \"a<|b\", \"n\": 2}<|tool_call_end|><|tool_calls_section_end|>";
        List<ChatDelta> deltas = feedCharByChar(t.parser(prompt), out);
        StringBuilder content = new StringBuilder();
        List<ChatDelta.ToolCallDelta> calls = new ArrayList<>();
        for (ChatDelta d : deltas) {
            switch (d) {
                case ChatDelta.Content c -> content.append(c.text());
                case ChatDelta.ToolCallDelta c -> calls.add(c);
                case ChatDelta.Reasoning r -> throw new AssertionError(r);
            }
        }
        assertEquals("Checking.", content.toString());
        assertEquals(List.of(new ChatDelta.ToolCallDelta(0, "functions.get_weather:0", "get_weather", "{\"city\":\"Paris\"}"),
                new ChatDelta.ToolCallDelta(1, "functions.search:1", "search", "{\"query\":\"a<|b\",\"n\":2}")), calls);
        // A section cut short by the end of generation still yields its call.
        List<ChatDelta> cut = feedCharByChar(t.parser(prompt), "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
                + "<|tool_call_argument_begin|>{}<|tool_call_end|>");
        assertEquals(List.of(new ChatDelta.ToolCallDelta(0, "functions.f:0", "f", "{}")), cut);
        // Markup that is not a call is kept as text, not dropped.
        List<ChatDelta> bad = feedCharByChar(t.parser(prompt), "<|tool_calls_section_begin|>oops<|tool_calls_section_end|>");
        assertEquals("<|tool_calls_section_begin|>oops<|tool_calls_section_end|>",
                bad.stream().map(d -> ((ChatDelta.Content) d).text()).reduce("", String::concat));
    }

    @Test
    void parsedCallsRenderBackAsTheModelWroteThem() {
        ChatTemplate t = provider().create("kimi-k2", context("kimi-k2"));
        String section = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
                + "{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>";
        ChatDelta.ToolCallDelta c = (ChatDelta.ToolCallDelta) feedCharByChar(t.parser(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q")))), section).getFirst();
        String rendered = t.render(new ChatPrompt(List.of(ChatMessage.of(Role.USER, "q"),
                new ChatMessage(Role.ASSISTANT, "", "", List.of(new ToolCall(c.id(), c.name(), c.arguments())), "", "")), List.of(), false, Map.of()));
        assertTrue(rendered.endsWith("<|im_assistant|>assistant<|im_middle|>" + section + "<|im_end|>"), rendered);
    }

    @Test
    void grammarWritesTheSectionAndUsesTheArgumentRules() {
        ChatTemplate t = provider().create("kimi-k2", context("kimi-k2"));
        String g = t.toolCallGrammar(List.of(new ToolDefinition("f", "", Map.of()), new ToolDefinition("g", "", Map.of())),
                Map.of("f", "f-args", "g", "g-args"), true).orElseThrow();
        assertTrue(g.startsWith("root ::= \"<|tool_calls_section_begin|>\" tc-call tc-call* \"<|tool_calls_section_end|>\"\n"), g);
        assertTrue(g.contains("\"f:\" tc-index \"<|tool_call_argument_begin|>\" f-args | \"g:\" tc-index"), g);
        assertEquals(List.of("<|tool_calls_section_begin|>"), t.toolCallTriggers());
        assertEquals(List.of("<|im_end|>"), t.endOfTurn());
    }

    @Test
    void claimsByFingerprintTokenizerAndName() throws Exception {
        Path templates = Path.of(System.getProperty("forge.llama.home"), "src/models/templates");
        TemplateClaim orig = provider().claim(model("x", Map.of("tokenizer.chat_template",
                Files.readString(templates.resolve("moonshotai-Kimi-K2.jinja"))))).orElseThrow();
        assertEquals("kimi-k2", orig.variant());
        assertEquals(TemplateClaim.Rule.METADATA, orig.rule());
        assertEquals("kimi-k2-instruct", provider().claim(model("x", Map.of("tokenizer.chat_template",
                Files.readString(templates.resolve("Kimi-K2-Instruct.jinja"))))).orElseThrow().variant());
        // K2 Thinking reasons in <think>: not a template of this family, so the generic plugin renders it.
        assertEquals(Optional.empty(), provider().claim(model("x", Map.of("tokenizer.chat_template",
                Files.readString(templates.resolve("Kimi-K2-Thinking.jinja"))))));
        TemplateClaim byTokenizer = provider().claim(model("x", Map.of("general.architecture", "deepseek2", "tokenizer.ggml.pre", "kimi-k2"))).orElseThrow();
        assertEquals("kimi-k2-instruct", byTokenizer.variant());
        assertEquals(40, byTokenizer.confidence());
        assertEquals(Optional.empty(), provider().claim(model("DeepSeek-V3", Map.of("general.architecture", "deepseek2"))));
        assertEquals("kimi-k2-instruct", provider().claim(model("x", Map.of("general.name", "Kimi K2 Instruct 0905"))).orElseThrow().variant());
        assertEquals("kimi-k2-instruct", provider().claim(model("Kimi-K2-Instruct-Q4_K_M", Map.of())).orElseThrow().variant());
        assertEquals("kimi-k2", provider().claim(model("kimi_k2", Map.of())).orElseThrow().variant());
        assertEquals(TemplateClaim.Rule.NAME, provider().claim(model("kimi_k2", Map.of())).orElseThrow().rule());
        assertEquals(Optional.empty(), provider().claim(model("Kimi-K2-Thinking", Map.of())));
    }
}
