package forge.template.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.template.ChatDelta;
import java.util.ArrayList;
import java.util.List;

/** Checks on the tool-call deltas a parser emits, as OpenAI clients read them. */
public final class ToolCallDeltas {
    private ToolCallDeltas() {
    }

    /**
     * The calls of a stream of deltas (other deltas are skipped), checking the stream's shape: a
     * call's first delta carries its id and name, later ones only add to its arguments, and calls
     * come one after another in index order.
     */
    public static List<ChatDelta.ToolCallDelta> merge(List<? extends ChatDelta> deltas) {
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
                calls.set(calls.size() - 1, new ChatDelta.ToolCallDelta(c.index(), c.id(), c.name(), c.arguments() + d.arguments()));
            }
        }
        return calls;
    }
}
