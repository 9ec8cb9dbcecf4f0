package forge.template.kimi;

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
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.template.testkit.ChatTemplateContract;
import forge.template.testkit.OfficialTemplates;
import forge.template.toolkit.calls.KimiToolCalls;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KimiTemplatesTest extends ChatTemplateContract {

    KimiTemplatesTest() {
        super(new KimiTemplates(), variant -> KimiTemplate.CAPS);
    }

    @Test
    void parsedCallsRenderBackAsTheModelWroteThem() {
        ChatTemplate t = provider().create("kimi-k2", context("kimi-k2"));
        String section =
                "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
                        + "{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>";
        ChatDelta.ToolCallDelta c = (ChatDelta.ToolCallDelta) feedCharByChar(
                        t.parser(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q")))), section)
                .getFirst();
        String rendered = t.render(afterCall(new ToolCall(c.id(), c.name(), c.arguments()), "", List.of()));
        assertTrue(rendered.endsWith("<|im_assistant|>assistant<|im_middle|>" + section + "<|im_end|>"), rendered);
    }

    @Test
    void callsAreKimiToolCalls() {
        for (String variant : List.of("kimi-k2", "kimi-k2-instruct")) {
            ChatTemplate t = provider().create(variant, context(variant));
            var tools = List.of(new ToolDefinition("f", "", Map.of()));
            assertEquals(
                    KimiToolCalls.SYNTAX.grammar(tools, Map.of("f", "f-args"), true),
                    t.toolCallGrammar(tools, Map.of("f", "f-args"), true));
            assertEquals(KimiToolCalls.SYNTAX.triggers(), t.toolCallTriggers());
            assertEquals(List.of("<|im_end|>"), t.endOfTurn());
        }
    }

    @Test
    void claimsByFingerprintTokenizerAndName() throws Exception {
        assertClaimedByTemplate(official("moonshotai-Kimi-K2.jinja"), "kimi-k2");
        assertClaimedByTemplate(official("Kimi-K2-Instruct.jinja"), "kimi-k2-instruct");
        // K2 Thinking reasons in <think>: not a template of this family, so the generic plugin renders it.
        assertUnclaimed("x", Map.of("tokenizer.chat_template", official("Kimi-K2-Thinking.jinja")));
        TemplateClaim byTokenizer = provider()
                .claim(model("x", Map.of("general.architecture", "deepseek2", "tokenizer.ggml.pre", "kimi-k2")))
                .orElseThrow();
        assertEquals("kimi-k2-instruct", byTokenizer.variant());
        assertEquals(40, byTokenizer.confidence());
        assertUnclaimed("DeepSeek-V3", Map.of("general.architecture", "deepseek2"));
        assertEquals("kimi-k2-instruct", claimedVariant(model("x", Map.of("general.name", "Kimi K2 Instruct 0905"))));
        assertClaimedByName("Kimi-K2-Instruct-Q4_K_M", "kimi-k2-instruct");
        assertClaimedByName("kimi_k2", "kimi-k2");
        assertUnclaimed("Kimi-K2-Thinking", Map.of());
    }

    @Test
    void claimsExactlyItsOwnOfficialTemplates() {
        // none of the other official templates, however much of this family's text they copy
        OfficialTemplates.assertClaimsExactly(
                new KimiTemplates(),
                Map.of("moonshotai-Kimi-K2.jinja", "kimi-k2", "Kimi-K2-Instruct.jinja", "kimi-k2-instruct"));
    }
}
