package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When a request waits for another slot to compute a prefix they share, and when it stops waiting. */
class PrefixWaitTest {

    @Test
    void aLongSharedSystemPromptIsWorthWaitingFor() {
        assertTrue(PrefixWait.worthWaiting(800, 830), "800 shared tokens of an 830-token prompt");
        assertTrue(PrefixWait.worthWaiting(30, 54), "a cold start: 30 of 54 tokens shared");
    }

    @Test
    void aFewTokensBeyondWhatTheCachesHoldAreNot() {
        assertFalse(PrefixWait.worthWaiting(2, 30), "the slots already cache the system prompt; 2 more tokens shared");
        assertFalse(PrefixWait.worthWaiting(10, 400), "a long prompt of which 10 tokens would be saved");
        assertFalse(PrefixWait.worthWaiting(0, 0));
    }

    @Test
    void theLineIsHalfOfWhatTheLeaderStillComputes() {
        for (int remaining = 0; remaining <= 300; remaining++) {
            for (int gain = 0; gain <= 200; gain++) {
                assertEquals(
                        gain > 0 && gain * 2 >= remaining,
                        PrefixWait.worthWaiting(gain, remaining),
                        gain + " of " + remaining);
            }
        }
        assertTrue(PrefixWait.worthWaiting(Integer.MAX_VALUE, Integer.MAX_VALUE), "no overflow");
        assertFalse(PrefixWait.worthWaiting(-1, 0));
    }

    @Test
    void theWaitGoesOnWhileTheLeaderComputesWhatIsAwaited() {
        assertFalse(PrefixWait.isOver(true, false, 0, 30));
        assertFalse(PrefixWait.isOver(true, false, 29, 30));
    }

    @Test
    void itIsOverOnceTheCellsAreThere() {
        assertTrue(PrefixWait.isOver(true, false, 30, 30));
        assertTrue(PrefixWait.isOver(true, false, 31, 30));
    }

    @Test
    void itIsOverWhenTheLeaderMovesOn() {
        assertTrue(
                PrefixWait.isOver(false, false, 0, 30),
                "its request ended (cancelled, failed): another may take its slot");
        assertTrue(PrefixWait.isOver(false, true, 40, 30), "another request runs there now");
        assertTrue(PrefixWait.isOver(true, true, 10, 30), "it decodes: it computes no more of its prompt");
    }
}
