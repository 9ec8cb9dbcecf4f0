package forge.template.generic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.OutputParser;
import forge.api.template.Role;
import forge.api.template.ToolDefinition;
import forge.template.toolkit.calls.HermesToolCalls;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ChatML's tool calls: the Hermes syntax (tested in the toolkit), read only when the request offers tools. */
class ChatMlTemplateTest {

    private static final List<ToolDefinition> TOOLS = List.of(new ToolDefinition("get_weather", "", Map.of()));

    @Test
    void withoutToolsEverythingIsContent() {
        OutputParser p = ChatMlTemplate.INSTANCE.parser(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q"))));
        String text = "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>";
        assertEquals(List.of(new ChatDelta.Content(text)), p.feed(text));
    }

    @Test
    void withToolsCallsAreTheHermesSyntax() {
        OutputParser p = ChatMlTemplate.INSTANCE.parser(
                new ChatPrompt(List.of(ChatMessage.of(Role.USER, "q")), TOOLS, true, Map.of()));
        List<ChatDelta> out = p.feed("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}\n</tool_call>");
        assertTrue(
                out.getFirst() instanceof ChatDelta.ToolCallDelta c && c.name().equals("get_weather"), out.toString());
        assertEquals(
                HermesToolCalls.SYNTAX.grammar(TOOLS, Map.of("get_weather", "a"), false),
                ChatMlTemplate.INSTANCE.toolCallGrammar(TOOLS, Map.of("get_weather", "a"), false));
        assertEquals(HermesToolCalls.SYNTAX.triggers(), ChatMlTemplate.INSTANCE.toolCallTriggers());
    }

    @Test
    void theChatmlVariantIsNamedChatmlAndTheFallbackGeneric() {
        var model = new forge.api.model.ModelDescriptor(
                "m", List.of(), java.nio.file.Path.of("m.gguf"), forge.api.model.ModelMetadata.EMPTY);
        var context = new forge.api.template.TemplateContext(model, "", "");
        var family = new GenericTemplates();
        assertEquals("chatml", family.create("chatml", context).name(), "what --chat-template chatml reports");
        assertEquals("generic", family.create("generic", context).name(), "a model without a template of its own");
        var prompt = ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "hi")));
        assertEquals(
                family.create("generic", context).render(prompt),
                family.create("chatml", context).render(prompt));
    }
}
