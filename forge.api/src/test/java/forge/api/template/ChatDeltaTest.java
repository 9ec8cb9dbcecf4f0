package forge.api.template;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChatDeltaTest {

    @Test
    void joinedDeltasAreTheReasoningAndTheContentEachInOneTextAndTheCallDeltasInOrder() {
        var first = new ChatDelta.ToolCallDelta(0, "c1", "f", "{\"a\":");
        var more = new ChatDelta.ToolCallDelta(0, "", "", "1}");
        ChatDelta.Joined j = ChatDelta.Joined.of(List.of(
                new ChatDelta.Reasoning("weigh "),
                new ChatDelta.Content("Sure"),
                new ChatDelta.Reasoning("it"),
                first,
                new ChatDelta.Content("."),
                more));
        assertEquals("weigh it", j.reasoning());
        assertEquals("Sure.", j.content());
        assertEquals(List.of(first, more), j.calls());
    }
}
