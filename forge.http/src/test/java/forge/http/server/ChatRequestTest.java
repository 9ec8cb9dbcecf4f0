package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import forge.api.template.ChatMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChatRequestTest {

    private static List<ChatMessage> messages(String json) {
        return ChatRequest.messages(Json.parse(("{\"messages\": " + json + "}").getBytes(StandardCharsets.UTF_8))
                .get("messages"));
    }

    @Test
    void eachMessageKeepsItsFormAsSentBesideTheJoinedText() {
        List<ChatMessage> m = messages("""
                [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "x_extra": {"n": 1}},
                 {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function",
                  "function": {"name": "f", "arguments": "{}"}}]}]
                """);
        // the family templates read the joined text and "" for null ...
        assertEquals("ab", m.get(0).content());
        assertEquals("", m.get(1).content());
        // ... a model's own Jinja template gets the message as the client sent it
        assertEquals(
                "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\",\"text\":\"b\"}],"
                        + "\"x_extra\":{\"n\":1}}",
                m.get(0).wire());
        assertEquals(
                "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\","
                        + "\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}",
                m.get(1).wire());
    }
}
