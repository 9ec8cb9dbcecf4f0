package forge.template.qwen;

import static forge.template.testkit.OutputFeeds.feedCharByChar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.Role;
import forge.api.template.TemplateClaim;
import forge.template.testkit.ChatTemplateContract;
import forge.template.testkit.ToolCallDeltas;
import forge.template.toolkit.PythonJson;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class QwenTemplatesTest implements ChatTemplateContract {

    @Override
    public ChatTemplateProvider provider() {
        return new QwenTemplates();
    }

    private static ModelDescriptor model(String id, Map<String, Object> meta) {
        return new ModelDescriptor(id, List.of(), Path.of(id + ".gguf"), new ModelMetadata(meta, Map.of()));
    }

    @Test
    void claimsByNameTolerantOfVariantSpellings() {
        assertEquals("qwen2.5", provider().claim(model("Qwen2.5-Coder-7B-Instruct-Q4_K_M", Map.of())).orElseThrow().variant());
        assertEquals("qwen3", provider().claim(model("qwen3_4b", Map.of())).orElseThrow().variant());
        assertEquals(TemplateClaim.Rule.NAME, provider().claim(model("qwen3_4b", Map.of())).orElseThrow().rule());
        assertEquals(Optional.empty(), provider().claim(model("Meta-Llama-3.1-8B", Map.of())));
    }

    @Test
    void claimsByChatTemplateFingerprintBeforeNames() throws Exception {
        String official = java.nio.file.Files.readString(Path.of(System.getProperty("forge.llama.home"), "src/models/templates/Qwen-Qwen3-0.6B.jinja"));
        TemplateClaim c = provider().claim(model("some-model", Map.of("tokenizer.chat_template", official))).orElseThrow();
        assertEquals("qwen3", c.variant());
        assertEquals(TemplateClaim.Rule.METADATA, c.rule());
        assertEquals("qwen2.5", provider().claim(model("x", Map.of("general.architecture", "qwen2"))).orElseThrow().variant());
        // A qwen2 GGUF with its own, unofficial template (a fine-tune's ChatML) keeps it: the generic
        // engine renders it exactly.
        assertTrue(provider().claim(model("x", Map.of("general.architecture", "qwen2",
                "tokenizer.chat_template", "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}")))
                .isEmpty());
    }

    @Test
    void parsesReasoningAndParallelToolCallsWhileStreaming() {
        var t = provider().create("qwen3", context("qwen3"));
        var prompt = ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q")));
        List<ChatDelta> deltas = feedCharByChar(t.parser(prompt),
                "<think>\nweigh it\n</think>\n\nSure.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n"
                        + "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"x<y\"}}\n</tool_call>");
        StringBuilder reasoning = new StringBuilder();
        StringBuilder content = new StringBuilder();
        List<ChatDelta.ToolCallDelta> calls = new ArrayList<>();
        for (ChatDelta d : deltas) {
            switch (d) {
                case ChatDelta.Reasoning r -> reasoning.append(r.text());
                case ChatDelta.Content c -> content.append(c.text());
                case ChatDelta.ToolCallDelta c -> calls.add(c);
            }
        }
        assertEquals("\nweigh it\n", reasoning.toString());
        assertEquals("Sure.\n", content.toString());
        List<ChatDelta.ToolCallDelta> merged = ToolCallDeltas.merge(calls);
        assertEquals(2, merged.size());
        assertEquals("get_weather", merged.get(0).name());
        assertEquals(Map.of("city", "Paris"), PythonJson.parse(merged.get(0).arguments()));
        assertEquals(1, merged.get(1).index());
        assertEquals(Map.of("q", "x<y"), PythonJson.parse(merged.get(1).arguments()));
        assertTrue(calls.size() > 2, "the arguments stream as they are written: " + calls.size() + " deltas");
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
    void streamedArgumentsSurviveBracesQuotesAndTheClosingMarkerInsideStrings() {
        var t = provider().create("qwen2.5", context("qwen2.5"));
        var prompt = ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q")));
        String args = "{\"code\": \"if (a) { b(\\\"}\\\"); } </tool_call> [\", \"n\": [1, {\"x\": []}], \"e\": \"\\u00e9\\\\\"}";
        StringBuilder content = new StringBuilder();
        List<ChatDelta.ToolCallDelta> deltas = calls(feedCharByChar(t.parser(prompt),
                "<tool_call>\n{\"name\": \"run\", \"arguments\": " + args + "}\n</tool_call>\nDone."), content);
        List<ChatDelta.ToolCallDelta> merged = ToolCallDeltas.merge(deltas);
        assertEquals(1, merged.size());
        assertEquals("run", merged.getFirst().name());
        assertEquals(PythonJson.parse(args), PythonJson.parse(merged.getFirst().arguments()));
        assertEquals("Done.", content.toString());

        // Fed at once, a call is one delta; a block of another shape is decoded whole, as before.
        List<ChatDelta> once = t.parser(prompt).feed("<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>");
        assertEquals(1, once.size());
        assertEquals("{\"a\":1}", ((ChatDelta.ToolCallDelta) once.getFirst()).arguments());
        List<ChatDelta.ToolCallDelta> reversed = ToolCallDeltas.merge(calls(feedCharByChar(t.parser(prompt),
                "<tool_call>\n{\"arguments\": {\"a\": 1}, \"name\": \"f\"}\n</tool_call>"), new StringBuilder()));
        assertEquals(List.of("f"), reversed.stream().map(ChatDelta.ToolCallDelta::name).toList());
        assertEquals("{\"a\":1}", reversed.getFirst().arguments());
    }

    @Test
    void aCallCutOffInItsArgumentsKeepsWhatWasStreamedAndLeaksNoMarkup() {
        var t = provider().create("qwen2.5", context("qwen2.5"));
        var prompt = ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q")));
        StringBuilder content = new StringBuilder();
        List<ChatDelta.ToolCallDelta> merged = ToolCallDeltas.merge(calls(feedCharByChar(t.parser(prompt),
                "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"text\": \"half a sen"), content));
        assertEquals(1, merged.size());
        assertEquals("{\"text\":\"half a sen", merged.getFirst().arguments());
        assertEquals("", content.toString());
    }

    @Test
    void outputStartsInReasoningWhenThePromptOpensIt() {
        var t = provider().create("qwen3", context("qwen3"));
        var prompt = ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q")));
        // Qwen 3's prompt does not open <think> itself; a model that starts with it still goes to reasoning.
        List<ChatDelta> deltas = feedCharByChar(t.parser(prompt), "<think>hm</think>ok");
        assertEquals(List.of(new ChatDelta.Reasoning("h"), new ChatDelta.Reasoning("m"), new ChatDelta.Content("o"),
                new ChatDelta.Content("k")), deltas);
    }

    @Test
    void grammarNamesEveryToolAndItsArgumentRule() {
        var t = provider().create("qwen2.5", context("qwen2.5"));
        String g = t.toolCallGrammar(List.of(new forge.api.template.ToolDefinition("f", "", Map.of()),
                new forge.api.template.ToolDefinition("g", "", Map.of())), Map.of("f", "f-args", "g", "g-args"), true).orElseThrow();
        assertTrue(g.startsWith("root ::= tc-call (\"\\n\" tc-call)*\n"), g);
        assertTrue(g.contains("\"\\\"f\\\", \\\"arguments\\\": \" f-args"), g);
        assertEquals(List.of("<tool_call>"), t.toolCallTriggers());
    }
}
