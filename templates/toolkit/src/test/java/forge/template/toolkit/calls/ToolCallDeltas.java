package forge.template.toolkit.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import forge.api.template.OutputParser;
import java.util.ArrayList;
import java.util.List;

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
}
