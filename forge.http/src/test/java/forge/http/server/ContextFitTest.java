package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ContextFitTest {

    @Test
    void aMaxTokensBeyondTheRoomLeftGeneratesUntilTheSlotIsFull() {
        // OpenCode's 32000 against 4 slots of 2048: prompt 1767 leaves 281.
        assertEquals(new ContextFit(281, true), ContextFit.of(1767, 32000, 2048, false));
    }

    @Test
    void strictKeepsTheRequestsMaxTokensForTheEngineToRefuse() {
        assertEquals(new ContextFit(32000, false), ContextFit.of(1767, 32000, 2048, true));
    }

    @Test
    void aMaxTokensThatFitsIsKept() {
        assertEquals(new ContextFit(200, false), ContextFit.of(100, 200, 2048, false));
        assertEquals(new ContextFit(1948, false), ContextFit.of(100, 1948, 2048, false), "exactly the room left");
    }

    @Test
    void noMaxTokensIsTheRoomLeft() {
        assertEquals(new ContextFit(1948, false), ContextFit.of(100, -1, 2048, false));
        assertEquals(new ContextFit(1948, false), ContextFit.of(100, -1, 2048, true));
    }

    @Test
    void aPromptThatDoesNotFitIsLeftForTheEngineToRefuse() {
        assertEquals(new ContextFit(16, false), ContextFit.of(2048, 16, 2048, false));
        assertEquals(new ContextFit(-1, false), ContextFit.of(5000, -1, 2048, false));
    }
}
