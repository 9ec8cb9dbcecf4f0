package forge.runtime.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class StopMatcherTest {

    @Test
    void stopsAcrossPiecesWithoutEmittingAnyPartOfTheStop() {
        StopMatcher m = new StopMatcher(List.of("</end>"));
        StringBuilder out = new StringBuilder();
        for (String piece : new String[] {"Hello <", "/e", "nd", "> more"}) {
            out.append(m.push(piece));
        }
        assertTrue(m.stopped());
        assertEquals("Hello ", out.toString());
        assertEquals("", m.push("after"));
    }

    @Test
    void releasesHeldTextWhenThePartialMatchFails() {
        StopMatcher m = new StopMatcher(List.of("STOP"));
        assertEquals("a", m.push("aST"));
        assertEquals("STx", m.push("x"));
        assertFalse(m.stopped());
        assertEquals("", m.push("S"));
        assertEquals("S", m.flush());
    }

    @Test
    void earliestOfSeveralStopsWins() {
        StopMatcher m = new StopMatcher(List.of("world", "lo w"));
        assertEquals("hel", m.push("hello world"));
        assertTrue(m.stopped());
        assertEquals("lo w", m.matched(), "the stop that matched is named (Anthropic's stop_sequence)");
    }

    @Test
    void namesNoStopWhenNoneMatched() {
        StopMatcher m = new StopMatcher(List.of("STOP"));
        assertEquals("a", m.push("aST"));
        assertEquals("", m.matched());
        assertEquals("ST", m.flush());
        assertEquals("", m.matched());
    }

    @Test
    void withoutStopsEverythingPassesAtOnce() {
        StopMatcher m = new StopMatcher(List.of());
        assertEquals("abc", m.push("abc"));
        assertEquals("", m.flush());
    }
}
