package forge.template.toolkit.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.Role;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The generic tool-call format around a template that renders roles and text only. */
class GenericToolCallsTest {

    /** A template without tools, as llama-server's built-in formats are: each turn "role: text". */
    private static final ChatTemplate PLAIN = new ChatTemplate() {
        @Override
        public String name() {
            return "plain";
        }

        @Override
        public String render(ChatPrompt prompt) {
            assertTrue(prompt.tools().isEmpty(), "the wrapped template is never given tools");
            return prompt.messages().stream()
                            .map(m -> m.role().wire() + ": " + m.content() + "\n")
                            .collect(Collectors.joining())
                    + (prompt.addGenerationPrompt() ? "assistant: " : "");
        }
    };

    private static final List<ToolDefinition> TOOLS =
            List.of(new ToolDefinition("get_weather", "The weather", schema()));

    /** The schema in the order a client wrote it (as the server reads it from JSON): Map.of has none. */
    private static Map<String, Object> schema() {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", Map.of("city", Map.of("type", "string")));
        return schema;
    }

    @Test
    void aTemplateWithASyntaxOfItsOwnIsLeftAsItIs() {
        ChatTemplate hermes = new ToolCallingTemplate() {
            @Override
            public ToolCallSyntax toolCallSyntax() {
                return HermesToolCalls.SYNTAX;
            }

            @Override
            public String name() {
                return "hermes";
            }

            @Override
            public String render(ChatPrompt prompt) {
                return "";
            }
        };
        assertSame(hermes, GenericToolCalls.around(hermes));
        ChatTemplate wrapped = GenericToolCalls.around(PLAIN);
        assertSame(wrapped, GenericToolCalls.around(wrapped));
        assertEquals(List.of("<tool_call>"), wrapped.toolCallTriggers());
        assertTrue(wrapped.toolCallGrammar(TOOLS, Map.of("get_weather", "args"), false)
                .orElseThrow()
                .contains("get_weather"));
    }

    @Test
    void toolsGoInTheSystemTurnAndCallsAndResultsBecomeText() {
        ChatPrompt prompt = new ChatPrompt(
                List.of(
                        ChatMessage.of(Role.SYSTEM, "Be brief."),
                        ChatMessage.of(Role.USER, "Weather in Oslo?"),
                        ChatMessage.calling("", List.of(new ToolCall("call_1", "get_weather", "{\"city\":\"Oslo\"}"))),
                        ChatMessage.toolResult("call_1", "sunny")),
                TOOLS,
                true,
                Map.of());
        String text = GenericToolCalls.around(PLAIN).render(prompt);
        assertEquals(
                "system: Be brief.\n\n" + GenericToolCalls.PREAMBLE + "\n"
                        + "{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"The weather\","
                        + " \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}}}}"
                        + GenericToolCalls.HOW_TO_CALL + "\n"
                        + "user: Weather in Oslo?\n"
                        + "assistant: <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>\n"
                        + "user: <tool_response>\nsunny\n</tool_response>\n"
                        + "assistant: ",
                text);
        // Without tools the template renders the conversation as it always does.
        ChatPrompt plain = new ChatPrompt(List.of(ChatMessage.of(Role.USER, "Hi")), List.of(), true, Map.of());
        assertEquals(PLAIN.render(plain), GenericToolCalls.around(PLAIN).render(plain));
    }

    @Test
    void theModelsCallsAreParsedWhenToolsAreOffered() {
        ChatPrompt prompt = new ChatPrompt(List.of(ChatMessage.of(Role.USER, "Weather?")), TOOLS, true, Map.of());
        var parser = GenericToolCalls.around(PLAIN).parser(prompt);
        List<ChatDelta> deltas = new ArrayList<>(parser.feed(
                "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>"));
        deltas.addAll(parser.finish());
        StringBuilder arguments = new StringBuilder();
        String name = "";
        for (ChatDelta d : deltas) {
            if (d instanceof ChatDelta.ToolCallDelta t) {
                name = t.name().isEmpty() ? name : t.name();
                arguments.append(t.arguments());
            } else {
                throw new AssertionError("no content besides the call: " + deltas);
            }
        }
        assertEquals("get_weather", name);
        assertEquals("{\"city\":\"Oslo\"}", arguments.toString().replace(" ", ""));
        // Without tools, text that looks like a call is the wrapped template's content.
        ChatPrompt none = new ChatPrompt(List.of(ChatMessage.of(Role.USER, "Hi")), List.of(), true, Map.of());
        var plain = GenericToolCalls.around(PLAIN).parser(none);
        List<ChatDelta> text = new ArrayList<>(plain.feed("<tool_call>"));
        text.addAll(plain.finish());
        assertEquals(List.of(new ChatDelta.Content("<tool_call>")), text);
    }
}
