package forge.template.llama;

import static forge.template.testkit.Models.model;
import static forge.template.testkit.OfficialTemplates.official;
import static forge.template.testkit.OutputFeeds.feedCharByChar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.TemplateException;
import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.template.testkit.ChatTemplateContract;
import forge.template.testkit.OfficialTemplates;
import forge.template.toolkit.calls.LlamaToolCalls;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LlamaTemplatesTest extends ChatTemplateContract {

    LlamaTemplatesTest() {
        super(new LlamaTemplates(), variant -> LlamaTemplate.CAPS);
    }

    @Test
    void claimsByOfficialTemplateThenNameThenLlama3Signs() throws Exception {
        String t31 = official("meta-llama-Llama-3.1-8B-Instruct.jinja");
        String t32 = official("meta-llama-Llama-3.2-3B-Instruct.jinja");
        assertEquals(100, assertClaimedByTemplate(t32, "llama3.2").confidence());
        assertEquals("llama3.1", claimedVariant(model("x", Map.of("tokenizer.chat_template", t31))));
        // 3.3 ships 3.1's template: general.name tells them apart.
        assertEquals(
                "llama3.3",
                claimedVariant(model(
                        "x",
                        Map.of(
                                "tokenizer.chat_template",
                                official("meta-llama-Llama-3.3-70B-Instruct.jinja"),
                                "general.name",
                                "Llama 3.3 70B Instruct"))));
        assertEquals("llama3.1", claimedVariant(model("x", Map.of("general.name", "Meta-Llama-3.1-8B-Instruct"))));
        assertEquals("llama3.2", claimedVariant(model("x", Map.of("general.basename", "Llama 3.2 3B"))));
        assertEquals(
                "llama3.1",
                claimedVariant(model("x", Map.of("general.architecture", "llama", "tokenizer.ggml.pre", "llama-bpe"))));
        // A template of Llama 3's tokens that is none of the official 3.x ones (Llama 3.0's, a
        // fine-tune's) is left to the generic engine, which renders it exactly; so are Llama 3 signs
        // beside such a template.
        String llama30 =
                "{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m.role }}<|end_header_id|>\n\n{{ m.content }}<|eot_id|>{% endfor %}";
        assertUnclaimed("x", Map.of("tokenizer.chat_template", llama30));
        assertUnclaimed(
                "x",
                Map.of(
                        "tokenizer.chat_template",
                        llama30,
                        "general.architecture",
                        "llama",
                        "tokenizer.ggml.pre",
                        "llama-bpe"));
        // Llama architecture alone is no sign: Mistral and many others use it.
        assertUnclaimed("mystery", Map.of("general.architecture", "llama", "tokenizer.ggml.pre", "default"));
        assertUnclaimed("x", Map.of("tokenizer.chat_template", official("google-gemma-2-2b-it.jinja")));
    }

    @Test
    void claimsByIdsAndAliasesCaseInsensitiveAndTolerant() {
        assertClaimedByName("Meta-Llama-3.1-8B", "llama3.1");
        assertClaimedByName("llama-3.3-70b-instruct-q4", "llama3.3");
        assertClaimedByName("LLAMA3_2_1B", "llama3.2");
        assertEquals(
                "llama3.2",
                claimedVariant(new ModelDescriptor(
                        "my-model", List.of("llama3.2:3b"), Path.of("m.gguf"), ModelMetadata.EMPTY)));
        assertClaimedByName("llama3.2-1b", "llama3.2");
        // Llama 3 (without a minor version) has a different template; "3-1b" is a size, not 3.1.
        assertUnclaimed("Meta-Llama-3-8B-Instruct", Map.of());
        assertUnclaimed("llama-3-1b", Map.of());
        assertUnclaimed("qwen3_4b", Map.of());
    }

    private static ChatPrompt prompt(List<ChatMessage> messages, Map<String, Object> options) {
        return new ChatPrompt(messages, List.of(), true, options);
    }

    @Test
    void llama32UsesDateStringElseTodayLikeStrftime() {
        var hi = List.of(ChatMessage.of(Role.USER, "Hi"));
        var t32 = new LlamaTemplate("llama3.2", "<|begin_of_text|>", () -> LocalDate.of(2026, 2, 7));
        assertTrue(
                t32.render(prompt(hi, Map.of())).contains("\nToday Date: 07 Feb 2026\n\n"),
                t32.render(prompt(hi, Map.of())));
        assertTrue(
                t32.render(prompt(hi, Map.of("date_string", "01 Jan 2030"))).contains("\nToday Date: 01 Jan 2030\n\n"));
        String today = LlamaTemplate.STRFTIME_D_B_Y.format(LocalDate.now());
        assertTrue(provider()
                .create("llama3.2", context("llama3.2"))
                .render(prompt(hi, Map.of()))
                .contains("Today Date: " + today + "\n"));
        // 3.1 has no clock: its template's fixed date.
        assertTrue(provider()
                .create("llama3.1", context("llama3.1"))
                .render(prompt(hi, Map.of()))
                .contains("Today Date: 26 Jul 2024\n"));
    }

    @Test
    void builtinToolsAndToolsInSystemFollowTheOfficialTemplate() {
        var t = provider().create("llama3.1", context("llama3.1"));
        var messages = List.of(
                ChatMessage.of(Role.SYSTEM, " Be brief. "),
                ChatMessage.of(Role.USER, "Search cats"),
                ChatMessage.calling("", List.of(new ToolCall("c1", "brave_search", "{\"query\":\"cats\"}"))),
                ChatMessage.toolResult("c1", "[]"));
        String out = t.render(new ChatPrompt(
                messages,
                List.of(),
                false,
                Map.of("date_string", "05 Mar 2025", "builtin_tools", List.of("brave_search", "code_interpreter"))));
        // Rendered by the official template with Python's jinja2 (make_golden.py's environment).
        assertEquals(
                "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\nTools: brave_search\n\n"
                        + "Cutting Knowledge Date: December 2023\nToday Date: 05 Mar 2025\n\nBe brief.<|eot_id|>"
                        + "<|start_header_id|>user<|end_header_id|>\n\nSearch cats<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
                        + "<|python_tag|>brave_search.call(query=\"cats\")<|eom_id|><|start_header_id|>ipython<|end_header_id|>\n\n\"[]\"<|eot_id|>",
                out);
        var tools = List.of(new ToolDefinition("f", "", Map.of()));
        String inSystem = t.render(new ChatPrompt(
                List.of(ChatMessage.of(Role.USER, "q")),
                tools,
                true,
                Map.of("date_string", "05 Mar 2025", "tools_in_user_message", false)));
        assertEquals(
                "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\n"
                        + "Cutting Knowledge Date: December 2023\nToday Date: 05 Mar 2025\n\n"
                        + "You have access to the following functions. To call a function, please respond with JSON for a function call."
                        + "Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name and its value}.Do not use variables.\n\n"
                        + "{\n    \"type\": \"function\",\n    \"function\": {\n        \"name\": \"f\",\n        \"parameters\": {}\n    }\n}\n\n"
                        + "<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nq<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
                inSystem);
        var e = assertThrows(
                TemplateException.class,
                () -> t.render(new ChatPrompt(List.of(ChatMessage.of(Role.SYSTEM, "s")), tools, true, Map.of())));
        assertEquals("Cannot put tools in the first user message when there's no first user message!", e.getMessage());
    }

    @Test
    void endsTurnsAtEotAndEomAndRendersBos() {
        var t = provider().create("llama3.3", context("llama3.3"));
        assertEquals(List.of("<|eot_id|>", "<|eom_id|>"), t.endOfTurn());
        assertTrue(t.rendersBos());
        assertTrue(
                t.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q")))).startsWith("<|begin_of_text|>"));
    }

    @Test
    void callsAreLlamasJsonAndPythonTagSyntax() {
        var t = provider().create("llama3.2", context("llama3.2"));
        var tools = List.of(new ToolDefinition("f", "", Map.of()));
        assertEquals(
                LlamaToolCalls.SYNTAX.grammar(tools, Map.of("f", "f-args"), true),
                t.toolCallGrammar(tools, Map.of("f", "f-args"), true));
        assertEquals(LlamaToolCalls.SYNTAX.triggers(), t.toolCallTriggers());
        List<ChatDelta> deltas = feedCharByChar(
                t.parser(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q")))), "<|python_tag|>print(1)");
        assertEquals(
                List.of(new ChatDelta.ToolCallDelta(
                        0, ((ChatDelta.ToolCallDelta) deltas.getFirst()).id(), "python", "{\"code\":\"print(1)\"}")),
                deltas);
    }

    @Test
    void claimsExactlyItsOwnOfficialTemplates() {
        // none of the other official templates, however much of this family's text they copy
        OfficialTemplates.assertClaimsExactly(
                new LlamaTemplates(),
                Map.of(
                        "meta-llama-Llama-3.1-8B-Instruct.jinja",
                        "llama3.1",
                        "meta-llama-Llama-3.2-3B-Instruct.jinja",
                        "llama3.2",
                        "meta-llama-Llama-3.3-70B-Instruct.jinja",
                        "llama3.1"));
    }
}
