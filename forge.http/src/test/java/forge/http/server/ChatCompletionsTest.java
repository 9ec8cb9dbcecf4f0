package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class ChatCompletionsTest {

    /** What the general path writes for a content delta: a JSON tree, serialized by Jackson. */
    private static String viaTree(String id, long created, String model, int index, String text) {
        ObjectNode chunk = OpenAiWire.chunk(id, created, model);
        ObjectNode choice = chunk.withArray("choices").addObject();
        choice.put("index", index);
        ObjectNode delta = choice.putObject("delta");
        choice.putNull("logprobs");
        choice.putNull("finish_reason");
        delta.put("content", text);
        return "data: " + Json.string(chunk) + "\n\n";
    }

    @Test
    void theContentFastPathWritesExactlyWhatTheTreeWould() {
        for (String text : new String[] {
            "", "hello", "quote \" and \\ backslash", "new\nline\ttab\r", "\u0001ctl", "héllo 日本 🙂", "</s><|im_end|>"
        }) {
            assertEquals(
                    viaTree("chatcmpl-1f", 1796000000L, "qwen \"2.5\"", 3, text),
                    ChatCompletions.contentChunk("chatcmpl-1f", 1796000000L, "qwen \"2.5\"", 3, text),
                    text);
        }
    }
}
