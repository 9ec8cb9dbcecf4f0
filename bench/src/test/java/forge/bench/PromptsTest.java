package forge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PromptsTest {

    @Test
    void everyRequestFixesItsWork() {
        var body = Prompts.chat("m", "sys", "user", 32, true);
        assertEquals(32, body.get("max_tokens").asInt());
        assertTrue(body.get("ignore_eos").asBoolean());
        assertEquals(0.0, body.get("temperature").asDouble());
        assertTrue(body.get("stream_options").get("include_usage").asBoolean());
        assertEquals("system", body.get("messages").get(0).get("role").asText());
        assertFalse(Prompts.chat("m", "s", "u", 8, false).has("stream_options"));
    }

    @Test
    void sharedPromptIsAboutEightHundredTokensAndUserMessagesDiffer() {
        // 802 tokens measured with the Qwen2 vocabulary; about 4.3 characters per token here.
        int chars = Prompts.sharedSystem().length();
        assertTrue(chars > 3000 && chars < 4000, "characters: " + chars);
        assertEquals(Prompts.sharedSystem(), Prompts.sharedSystem());
        // One session's clients share the prompt; the next session's differs from its first tokens.
        assertEquals(Prompts.sharedSystem(3), Prompts.sharedSystem(3));
        assertTrue(Prompts.sharedSystem(3).endsWith(Prompts.sharedSystem()));
        assertTrue(!Prompts.sharedSystem(4).startsWith(Prompts.sharedSystem(3).substring(0, 10)));
        // A sessions workload's session keeps its own prompt, unlike any other session's or the shared workload's.
        assertEquals(Prompts.sessionSystem(2), Prompts.sessionSystem(2));
        assertTrue(Prompts.sessionSystem(2).endsWith(Prompts.sharedSystem()));
        assertTrue(!Prompts.sessionSystem(2).startsWith(Prompts.sharedSystem(2).substring(0, 10)));
        assertNotEquals(
                Prompts.sessionSystem(2).substring(0, 20),
                Prompts.sessionSystem(3).substring(0, 20));
        assertNotEquals(Prompts.userMessage(0, 0), Prompts.userMessage(0, 1));
        assertNotEquals(Prompts.userMessage(0, 0), Prompts.userMessage(1, 0));
    }
}
