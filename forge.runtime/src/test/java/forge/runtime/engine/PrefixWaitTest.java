package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When a request waits for another slot to compute a prefix they share (the engine tests show the waiting itself). */
class PrefixWaitTest {

    @Test
    void aLongSharedSystemPromptIsWorthWaitingFor() {
        assertTrue(Engine.worthWaiting(800, 830), "800 shared tokens of an 830-token prompt");
        assertTrue(Engine.worthWaiting(30, 54), "a cold start: 30 of 54 tokens shared");
    }

    @Test
    void aFewTokensBeyondWhatTheCachesHoldAreNot() {
        assertFalse(Engine.worthWaiting(2, 30), "the slots already cache the system prompt; 2 more tokens shared");
        assertFalse(Engine.worthWaiting(10, 400), "a long prompt of which 10 tokens would be saved");
        assertFalse(Engine.worthWaiting(0, 0));
    }
}
