package forge.template.toolkit.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import forge.api.template.OutputParser;
import forge.api.template.ToolDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Feeding output to a parser as a stream would, and checks on the tool-call deltas it emits, as OpenAI clients read them. */
final class ToolCallDeltas {
    private ToolCallDeltas() {}

    /**
     * The calls of a stream of deltas (other deltas are skipped), checking the stream's shape: a
     * call's first delta carries its id and name, later ones only add to its arguments, and calls
     * come one after another in index order.
     */
    static List<ChatDelta.ToolCallDelta> merge(List<? extends ChatDelta> deltas) {
        List<ChatDelta.ToolCallDelta> calls = new ArrayList<>();
        for (ChatDelta delta : deltas) {
            if (!(delta instanceof ChatDelta.ToolCallDelta d)) {
                continue;
            }
            if (d.index() == calls.size()) {
                assertFalse(d.id().isEmpty() || d.name().isEmpty(), "a call's first delta names it: " + d);
                calls.add(d);
            } else {
                assertEquals(calls.size() - 1, d.index(), "the deltas of one call come together, in index order");
                assertTrue(d.id().isEmpty() && d.name().isEmpty(), "a later delta only adds arguments: " + d);
                ChatDelta.ToolCallDelta c = calls.getLast();
                calls.set(
                        calls.size() - 1,
                        new ChatDelta.ToolCallDelta(c.index(), c.id(), c.name(), c.arguments() + d.arguments()));
            }
        }
        return calls;
    }

    /**
     * All deltas of {@code text} fed one character (code point) at a time, as the worst tokenizer
     * would, then {@code finish()}; the testkit's {@code OutputFeeds} does the same for the
     * template plugins, which this module's tests cannot depend on (the testkit depends on it).
     */
    static List<ChatDelta> feedCharByChar(OutputParser parser, String text) {
        List<ChatDelta> out = new ArrayList<>();
        text.codePoints().forEach(cp -> out.addAll(parser.feed(Character.toString(cp))));
        out.addAll(parser.finish());
        return out;
    }

    /** The grammar of {@code syntax} for two tools, {@code f} and {@code g}, whose argument rules are {@code f-args} and {@code g-args}, calls in parallel. */
    static String grammarOfTwoTools(ToolCallSyntax syntax) {
        return syntax.grammar(
                        List.of(new ToolDefinition("f", "", Map.of()), new ToolDefinition("g", "", Map.of())),
                        Map.of("f", "f-args", "g", "g-args"),
                        true)
                .orElseThrow();
    }

    /** A stream's content text and its calls, in order. */
    record ContentAndCalls(String content, List<ChatDelta.ToolCallDelta> calls) {}

    /** The content and calls of {@code deltas}, failing at a reasoning delta (the stream has none). */
    static ContentAndCalls withoutReasoning(List<ChatDelta> deltas) {
        StringBuilder content = new StringBuilder();
        List<ChatDelta.ToolCallDelta> calls = new ArrayList<>();
        for (ChatDelta d : deltas) {
            switch (d) {
                case ChatDelta.Content c -> content.append(c.text());
                case ChatDelta.ToolCallDelta c -> calls.add(c);
                case ChatDelta.Reasoning r -> throw new AssertionError("reasoning " + r);
            }
        }
        return new ContentAndCalls(content.toString(), calls);
    }
}
