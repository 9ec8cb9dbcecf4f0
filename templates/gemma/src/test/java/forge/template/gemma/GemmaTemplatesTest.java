package forge.template.gemma;

import static forge.template.testkit.Models.model;
import static forge.template.testkit.OfficialTemplates.official;
import static forge.template.testkit.OutputFeeds.afterCall;
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
import forge.lib.text.PythonJson;
import forge.template.testkit.ChatTemplateContract;
import forge.template.testkit.OfficialTemplates;
import forge.template.toolkit.calls.Gemma4ToolCalls;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class GemmaTemplatesTest extends ChatTemplateContract {

    GemmaTemplatesTest() {
        super(new GemmaTemplates(), variant -> variant.equals("gemma4") ? Gemma4Template.CAPS : Gemma2Template.CAPS);
    }

    @Test
    void claimsByTemplateThenNameThenArchitectureThenId() throws Exception {
        assertClaimedByTemplate(official("google-gemma-4-31B-it.jinja"), "gemma4");
        assertClaimedByTemplate(official("google-gemma-2-2b-it.jinja"), "gemma2");
        assertEquals("gemma2", claimedVariant(model("x", Map.of("general.name", "gemma-2-9b-it"))));
        assertEquals("gemma4", claimedVariant(model("x", Map.of("general.basename", "Gemma 4"))));
        assertEquals("gemma2", claimedVariant(model("x", Map.of("general.architecture", "gemma3"))));
        assertEquals("gemma2", claimedVariant(model("x", Map.of("general.architecture", "gemma2"))));
        assertEquals("gemma4", claimedVariant(model("x", Map.of("general.architecture", "gemma4"))));
        assertClaimedByName("gemma-3-4b-it-Q4_K_M", "gemma2");
        assertEquals(
                "gemma4",
                claimedVariant(
                        new ModelDescriptor("m", List.of("GEMMA_4_31B_IT"), Path.of("m.gguf"), ModelMetadata.EMPTY)));
        // Gemma 1 ("gemma-2b" is its 2B size) and other families are not claimed.
        assertUnclaimed("gemma-2b-it", Map.of());
        assertUnclaimed("x", Map.of("tokenizer.chat_template", official("meta-llama-Llama-3.1-8B-Instruct.jinja")));
        assertUnclaimed("Meta-Llama-3.1-8B", Map.of("general.architecture", "llama"));
        // Templates these variants would not reproduce byte for byte go to the generic Jinja engine.
        assertUnclaimed(
                "gemma-4-31b-it",
                Map.of(
                        "general.architecture",
                        "gemma4",
                        "tokenizer.chat_template",
                        official("google-gemma-4-31B-it-interleaved.jinja")));
        assertUnclaimed(
                "gemma-3-4b-it",
                Map.of(
                        "general.architecture",
                        "gemma3",
                        "tokenizer.chat_template",
                        "{%- if messages[0]['role'] == 'system' -%}{%- set first_user_prefix = messages[0]['content'] + '\\n\\n' -%}"
                                + "{%- endif -%}<start_of_turn>user\n{{ first_user_prefix }}<end_of_turn>"));
    }

    @Test
    void gemma2RefusesWithTheTemplatesOwnWords() {
        var t = provider().create("gemma2", context("gemma2"));
        var sys = assertThrows(
                TemplateException.class,
                () -> t.render(
                        ChatPrompt.of(List.of(ChatMessage.of(Role.DEVELOPER, "s"), ChatMessage.of(Role.USER, "u")))));
        assertEquals("System role not supported", sys.getMessage());
        var alt = assertThrows(
                TemplateException.class,
                () -> t.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "a"), ChatMessage.of(Role.USER, "b")))));
        assertEquals("Conversation roles must alternate user/assistant/user/assistant/...", alt.getMessage());
        assertEquals(
                Optional.empty(),
                t.toolCallGrammar(List.of(new ToolDefinition("f", "", Map.of())), Map.of("f", "f-args"), false));
        assertEquals(List.of("<end_of_turn>"), t.endOfTurn());
        assertTrue(t.rendersBos());
    }

    @Test
    void gemma4DeclaresNestedSchemasAsTheOfficialTemplateDoes() {
        Map<String, Object> item = new LinkedHashMap<>();
        item.put("type", "object");
        item.put("properties", Map.of("id", Map.of("type", "integer")));
        item.put("required", List.of("id"));
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("Tags", Map.of("type", "array", "items", item, "description", "tags"));
        props.put(
                "opts",
                Map.of("type", "object", "nullable", true, "properties", Map.of("deep", Map.of("type", "boolean"))));
        props.put("alpha", Map.of("type", "string", "enum", List.of("a", "b")));
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("type", "object");
        params.put("properties", props);
        var t = provider().create("gemma4", context("gemma4"));
        String out = t.render(new ChatPrompt(
                List.of(ChatMessage.of(Role.USER, "q")),
                List.of(new ToolDefinition("f", "does f", params)),
                true,
                Map.of()));
        // Rendered by the official template with Python's jinja2 (make_golden.py's environment).
        assertEquals(
                "<bos><|turn>system\n<|tool>declaration:f{description:<|\"|>does f<|\"|>,parameters:{properties:{"
                        + "alpha:{enum:[<|\"|>a<|\"|>,<|\"|>b<|\"|>],type:<|\"|>STRING<|\"|>},"
                        + "opts:{nullable:true,properties:{deep:{type:<|\"|>BOOLEAN<|\"|>}},type:<|\"|>OBJECT<|\"|>},"
                        + "Tags:{description:<|\"|>tags<|\"|>,items:{properties:{id:{type:<|\"|>INTEGER<|\"|>}},required:[<|\"|>id<|\"|>],"
                        + "type:<|\"|>OBJECT<|\"|>},type:<|\"|>ARRAY<|\"|>}},type:<|\"|>OBJECT<|\"|>}}<tool|><turn|>\n"
                        + "<|turn>user\nq<turn|>\n<|turn>model\n<|channel>thought\n<channel|>",
                out);
    }

    @Test
    void gemma4ParsesThoughtBesideCallsWhileStreaming() {
        var t = provider().create("gemma4", context("gemma4"));
        var prompt = ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q")));
        List<ChatDelta> deltas = feedCharByChar(
                t.parser(prompt),
                "<|channel>thought\nNeed weather.<channel|>Checking.<|tool_call>call:get_weather{city:<|\"|>Zürich, \"CH\"<|\"|>,days:2.0,"
                        + "opts:{deep:[true,null,None],n:-3}}<tool_call|><|tool_call>call:search{query:<|\"|>a<b<|\"|>}<tool_call|>");
        ChatDelta.Joined out = ChatDelta.Joined.of(deltas);
        // The blank after <|channel>thought is dropped; the calls are Gemma4ToolCalls' (tested in the toolkit).
        assertEquals("Need weather.", out.reasoning());
        assertEquals("Checking.", out.content());
        assertEquals(
                List.of("get_weather", "search"),
                out.calls().stream().map(ChatDelta.ToolCallDelta::name).toList());
    }

    @Test
    void gemma4RoundTripsWhatItRendersAsACall() {
        var t = provider().create("gemma4", context("gemma4"));
        var call = new ToolCall(
                "c1", "get_weather", "{\"city\":\"Oslo\",\"unit\":null,\"days\":[1,2.5],\"x\":{\"b\":true}}");
        String history = t.render(afterCall(call, "", List.of()));
        String written = history.substring(
                history.indexOf("<|tool_call>"), history.indexOf("<tool_call|>") + "<tool_call|>".length());
        var parsed = (ChatDelta.ToolCallDelta) feedCharByChar(
                        t.parser(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q")))), written)
                .getFirst();
        assertEquals(PythonJson.parse(call.arguments()), PythonJson.parse(parsed.arguments()));
        assertTrue(history.endsWith("<tool_call|><|tool_response>"), history);
    }

    @Test
    void gemma4CallsAreGemma4ToolCalls() {
        var t = provider().create("gemma4", context("gemma4"));
        var tools = List.of(new ToolDefinition("f", "", Map.of()), new ToolDefinition("g", "", Map.of()));
        assertEquals(Gemma4ToolCalls.SYNTAX.grammar(tools, Map.of(), true), t.toolCallGrammar(tools, Map.of(), true));
        assertEquals(Gemma4ToolCalls.SYNTAX.triggers(), t.toolCallTriggers());
        assertEquals(List.of("<turn|>", "<|tool_response>"), t.endOfTurn());
    }

    @Test
    void claimsExactlyItsOwnOfficialTemplates() {
        // none of the other official templates, however much of this family's text they copy
        OfficialTemplates.assertClaimsExactly(
                new GemmaTemplates(),
                Map.of("google-gemma-2-2b-it.jinja", "gemma2", "google-gemma-4-31B-it.jinja", "gemma4"));
    }

    @Test
    void gemma4StripsEachTextPartOnItsOwnAsItsOfficialTemplateDoes() {
        // what Jinja2 renders from google-gemma-4-31B-it.jinja for these messages (as transformers passes them)
        var t = provider().create("gemma4", context("gemma4"));
        ChatMessage user = new ChatMessage(
                Role.USER,
                " a  b\n",
                "",
                List.of(),
                "",
                "",
                "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\" a \"},{\"type\":\"text\",\"text\":\" b\\n\"}]}");
        ChatMessage model = new ChatMessage(
                Role.ASSISTANT,
                "x<|channel>t<channel|>  y",
                "",
                List.of(),
                "",
                "",
                "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"x<|channel>t<channel|> \"},{\"type\":\"text\",\"text\":\" y\"}]}");
        assertEquals(
                "<bos><|turn>user\nab<turn|>\n<|turn>model\nxy<turn|>\n<|turn>user\nok<turn|>\n<|turn>model\n<|channel>thought\n<channel|>",
                t.render(ChatPrompt.of(List.of(user, model, ChatMessage.of(Role.USER, "ok")))));
    }
}
