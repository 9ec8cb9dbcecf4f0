package forge.template.toolkit.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;

import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.api.template.ToolDefinition;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A template that names its syntax and reasoning once answers the parser, the grammar and the triggers from them. */
class ToolCallingTemplateTest {

    private static final List<ToolDefinition> TOOLS = List.of(new ToolDefinition("get_weather", "", Map.of()));

    /**
     * A template of {@code toolCallSyntax}; when it {@code thinks} (as Qwen 3), its reasoning is
     * between {@code <think>} markers, which its generation prompt opens; else it keeps the default.
     */
    private record Fixed(ToolCallSyntax toolCallSyntax, boolean thinks) implements ToolCallingTemplate {
        @Override
        public String name() {
            return "fixed";
        }

        @Override
        public String render(ChatPrompt prompt) {
            return thinks && prompt.addGenerationPrompt() ? "<think>\n" : "";
        }

        @Override
        public Reasoning reasoning(ChatPrompt prompt) {
            return thinks
                    ? new Reasoning("<think>", "</think>", render(prompt).endsWith("<think>\n"))
                    : ToolCallingTemplate.super.reasoning(prompt);
        }
    }

    private static final Fixed THINKING = new Fixed(HermesToolCalls.SYNTAX, true);
    private static final Fixed PLAIN = new Fixed(LlamaToolCalls.SYNTAX, false);

    private static ChatPrompt prompt(boolean generationPrompt) {
        return new ChatPrompt(List.of(ChatMessage.of(Role.USER, "q")), TOOLS, generationPrompt, Map.of());
    }

    /** The texts of the deltas of one kind, joined. */
    private static String text(List<ChatDelta> deltas, Class<? extends ChatDelta> kind) {
        StringBuilder sb = new StringBuilder();
        for (ChatDelta d : deltas) {
            switch (d) {
                case ChatDelta.Reasoning r when kind == ChatDelta.Reasoning.class -> sb.append(r.text());
                case ChatDelta.Content c when kind == ChatDelta.Content.class -> sb.append(c.text());
                default -> {}
            }
        }
        return sb.toString();
    }

    @Test
    void theParserIsTheSyntaxsWithTheTemplatesReasoning() {
        String out = "why</think>so<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}\n</tool_call>";
        // the prompt opened reasoning: the output starts inside it
        List<ChatDelta> inside = ToolCallDeltas.feedCharByChar(THINKING.parser(prompt(true)), out);
        assertEquals("why", text(inside, ChatDelta.Reasoning.class));
        assertEquals("so", text(inside, ChatDelta.Content.class));
        List<ChatDelta.ToolCallDelta> calls = ToolCallDeltas.merge(inside);
        assertEquals(1, calls.size(), inside.toString());
        assertEquals("get_weather", calls.getFirst().name());
        // it did not: reasoning needs its opening marker, and the rest is content
        List<ChatDelta> outside = ToolCallDeltas.feedCharByChar(THINKING.parser(prompt(false)), "<think>why</think>so");
        assertEquals("why", text(outside, ChatDelta.Reasoning.class));
        assertEquals("so", text(outside, ChatDelta.Content.class));
    }

    @Test
    void withoutReasoningOfItsOwnATemplateReasonsNot() {
        assertEquals(Reasoning.NONE, PLAIN.reasoning(prompt(true)));
        String out = "<think>x</think>";
        assertEquals(
                ToolCallDeltas.feedCharByChar(LlamaToolCalls.SYNTAX.parser(Reasoning.NONE, TOOLS), out),
                ToolCallDeltas.feedCharByChar(PLAIN.parser(prompt(true)), out));
    }

    @Test
    void theGrammarAndTheTriggersAreTheSyntaxs() {
        Map<String, String> rules = Map.of("get_weather", "tool0-args");
        for (ToolCallingTemplate t : List.of(THINKING, PLAIN)) {
            assertEquals(t.toolCallSyntax().grammar(TOOLS, rules, true), t.toolCallGrammar(TOOLS, rules, true));
            assertEquals(t.toolCallSyntax().grammar(TOOLS, rules, false), t.toolCallGrammar(TOOLS, rules, false));
            assertEquals(t.toolCallSyntax().triggers(), t.toolCallTriggers());
        }
        assertEquals(List.of("<tool_call>"), THINKING.toolCallTriggers());
    }
}
