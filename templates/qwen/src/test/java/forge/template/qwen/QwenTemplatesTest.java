package forge.template.qwen;

import static forge.template.testkit.Models.model;
import static forge.template.testkit.OfficialTemplates.official;
import static forge.template.testkit.OutputFeeds.feedCharByChar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.template.testkit.ChatTemplateContract;
import forge.template.testkit.OfficialTemplates;
import forge.template.toolkit.calls.HermesToolCalls;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QwenTemplatesTest extends ChatTemplateContract {

    QwenTemplatesTest() {
        super(
                new QwenTemplates(),
                variant -> variant.equals(QwenTemplates.QWEN35) || variant.equals(QwenTemplates.QWEN3_CODER)
                        ? QwenXmlTemplate.caps(variant)
                        : QwenTemplate.caps(variant));
    }

    @Test
    void claimsByNameTolerantOfVariantSpellings() {
        assertClaimedByName("Qwen2.5-Coder-7B-Instruct-Q4_K_M", "qwen2.5");
        assertClaimedByName("qwen3_4b", "qwen3");
        assertUnclaimed("Meta-Llama-3.1-8B", Map.of());
    }

    @Test
    void claimsByChatTemplateFingerprintBeforeNames() throws Exception {
        assertClaimedByTemplate(official("Qwen-Qwen3-0.6B.jinja"), "qwen3");
        assertEquals("qwen2.5", claimedVariant(model("x", Map.of("general.architecture", "qwen2"))));
        // A qwen2 GGUF with its own, unofficial template (a fine-tune's ChatML) keeps it: the generic
        // engine renders it exactly.
        assertTrue(provider()
                .claim(
                        model(
                                "x",
                                Map.of(
                                        "general.architecture",
                                        "qwen2",
                                        "tokenizer.chat_template",
                                        "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}")))
                .isEmpty());
    }

    @Test
    void outputStartsInReasoningWhenThePromptOpensIt() {
        var t = provider().create("qwen3", context("qwen3"));
        var prompt = ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q")));
        // Qwen 3's prompt does not open <think> itself; a model that starts with it still goes to reasoning.
        List<ChatDelta> deltas = feedCharByChar(t.parser(prompt), "<think>hm</think>ok");
        assertEquals(
                List.of(
                        new ChatDelta.Reasoning("h"),
                        new ChatDelta.Reasoning("m"),
                        new ChatDelta.Content("o"),
                        new ChatDelta.Content("k")),
                deltas);
    }

    @Test
    void callsAreTheHermesSyntaxReasoningIsQwen3s() {
        var tools = List.of(new forge.api.template.ToolDefinition("f", "", Map.of()));
        var prompt = ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q")));
        for (String variant : List.of("qwen2.5", "qwen3")) {
            var t = provider().create(variant, context(variant));
            assertEquals(
                    HermesToolCalls.SYNTAX.grammar(tools, Map.of("f", "f-args"), true),
                    t.toolCallGrammar(tools, Map.of("f", "f-args"), true));
            assertEquals(HermesToolCalls.SYNTAX.triggers(), t.toolCallTriggers());
            ChatDelta.Joined out = ChatDelta.Joined.of(feedCharByChar(
                    t.parser(prompt),
                    "<think>x</think><tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"));
            // Qwen 2.5 has no reasoning: its markers are text.
            assertEquals(variant.equals("qwen3") ? "x" : "", out.reasoning(), variant);
            assertEquals(variant.equals("qwen3") ? "" : "<think>x</think>", out.content(), variant);
            // a call's first delta names it
            assertEquals(
                    1, out.calls().stream().filter(c -> !c.name().isEmpty()).count(), variant);
        }
    }

    @Test
    void claimsExactlyItsOwnOfficialTemplates() {
        // none of the other official templates, however much of this family's text they copy
        OfficialTemplates.assertClaimsExactly(
                new QwenTemplates(),
                Map.of(
                        "Qwen-Qwen2.5-7B-Instruct.jinja",
                        "qwen2.5",
                        "Qwen-Qwen3-0.6B.jinja",
                        "qwen3",
                        "Qwen3.5-4B.jinja",
                        "qwen3.5",
                        "Qwen3-Coder.jinja",
                        "qwen3-coder"));
    }
}
