package forge.api.template;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChatMessageTest {

    @Test
    void anAssistantsCallsAndAToolsResultAreTheMessagesTheirFieldsSay() {
        ToolCall call = new ToolCall("c1", "f", "{}");
        assertEquals(
                new ChatMessage(Role.ASSISTANT, "looking", "", List.of(call), "", "", ""),
                ChatMessage.calling("looking", List.of(call)));
        assertEquals(
                new ChatMessage(Role.ASSISTANT, "looking", "", List.of(call), "", "thought", ""),
                ChatMessage.calling("looking", List.of(call), "thought"));
        assertEquals(
                new ChatMessage(Role.TOOL, "sunny", "", List.of(), "c1", "", ""),
                ChatMessage.toolResult("c1", "sunny"));
    }
}
