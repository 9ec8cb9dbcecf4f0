package forge.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ThinkingTest {

    @Test
    void noneAndMinimalTurnThinkingOff() {
        assertEquals(Map.of("enable_thinking", false), Thinking.effort(Map.of(), "none", "reasoning_effort"));
        assertEquals(Map.of("enable_thinking", false), Thinking.effort(Map.of(), "minimal", "reasoning_effort"));
    }

    @Test
    void otherEffortsTurnItOnAndReachTemplatesThatTakeAnEffort() {
        assertEquals(
                Map.of("enable_thinking", true, "reasoning_effort", "high"),
                Thinking.effort(Map.of(), "high", "reasoning_effort"));
        assertEquals(
                Map.of("enable_thinking", true, "reasoning_effort", "low"),
                Thinking.effort(Map.of(), "low", "reasoning_effort"));
    }

    @Test
    void theRequestsOwnTemplateOptionsWin() {
        assertEquals(
                Map.of("enable_thinking", true),
                Thinking.effort(Map.of("enable_thinking", true), "none", "reasoning_effort"));
    }

    @Test
    void noEffortChangesNothing() {
        assertEquals(Map.of("x", 1), Thinking.effort(Map.of("x", 1), null, "reasoning_effort"));
    }

    @Test
    void anUnknownEffortIsRefusedByItsParam() {
        ApiError e = assertThrows(ApiError.class, () -> Thinking.effort(Map.of(), "extreme", "reasoning.effort"));
        assertEquals("reasoning.effort", e.param());
    }

    @Test
    void aBudgetGoesWithThinkingOn() {
        assertEquals(Map.of("enable_thinking", true, "thinking_budget", 2048), Thinking.switched(Map.of(), true, 2048));
        assertEquals(Map.of("enable_thinking", true), Thinking.switched(Map.of(), true, -1));
        assertEquals(Map.of("enable_thinking", false), Thinking.switched(Map.of(), false, 2048));
    }
}
