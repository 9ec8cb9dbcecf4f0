package forge.template.toolkit.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import forge.api.template.ToolDefinition;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** What every syntax promises, checked on all of them (the sealed interface names them). */
class ToolCallSyntaxTest {

    private static final List<ToolCallSyntax> ALL = List.of(
            HermesToolCalls.SYNTAX,
            LlamaToolCalls.SYNTAX,
            QwenXmlToolCalls.SYNTAX,
            Gemma4ToolCalls.SYNTAX,
            KimiToolCalls.SYNTAX);
    private static final List<ToolDefinition> TOOLS = List.of(new ToolDefinition("f", "", Map.of()));

    @Test
    void everySyntaxIsCheckedHere() {
        assertEquals(
                syntaxes(ToolCallSyntax.class).map(Class::getName).sorted().toList(),
                ALL.stream().map(s -> s.getClass().getName()).sorted().toList());
    }

    /** The concrete syntaxes below {@code c} in the sealed hierarchy (MarkupToolCalls is sealed too). */
    private static Stream<Class<?>> syntaxes(Class<?> c) {
        return c.isSealed()
                ? Arrays.stream(c.getPermittedSubclasses()).flatMap(ToolCallSyntaxTest::syntaxes)
                : Stream.of(c);
    }

    @Test
    void eachHasTriggersAndAGrammarOnlyForTools() {
        for (ToolCallSyntax s : ALL) {
            assertFalse(s.triggers().isEmpty(), s.toString());
            assertTrue(s.grammar(List.of(), Map.of(), true).isEmpty(), s.toString());
            String g = s.grammar(TOOLS, Map.of("f", "f-args"), false).orElseThrow();
            assertTrue(g.startsWith("root ::= "), g);
            // The grammar's first text is where a lazy grammar would engage: one of the triggers.
            assertTrue(
                    s.triggers().stream().anyMatch(t -> g.contains(t.replace("\"", "\\\"")) || g.contains(t)),
                    s + ": " + g);
        }
    }

    @Test
    void parserWhenOfferedReadsCallsOnlyWhenTheRequestOffersTools() {
        for (ToolCallSyntax s : ALL) {
            String trigger = s.triggers().getLast();
            List<ChatDelta> plain =
                    s.parserWhenOffered(Reasoning.NONE, List.of()).feed(trigger + "x");
            assertEquals(List.of(new ChatDelta.Content(trigger + "x")), plain, s.toString());
            assertTrue(
                    s.parserWhenOffered(Reasoning.NONE, TOOLS).feed(trigger).isEmpty(),
                    s + ": a possible call is held back");
        }
    }
}
