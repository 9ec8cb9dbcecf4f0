package forge.api.sampler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StageInfoTest {

    @Test
    void namesItsParametersAfterItself() {
        StageInfo info = new StageInfo(
                "loop_guard",
                "d",
                List.of(
                        StageParameter.integer("loop_guard_n", 12, 2, 64, "n"),
                        StageParameter.number("loop_guard_p", 0.5, 0, 1, "p"),
                        StageParameter.bool("loop_guard_on", true, "b"),
                        StageParameter.text("loop_guard_s", "x", 8, "s")));
        assertEquals(
                Map.of("loop_guard_n", 12L, "loop_guard_p", 0.5, "loop_guard_on", true, "loop_guard_s", "x"),
                info.defaults().values());
        var e = assertThrows(
                IllegalArgumentException.class,
                () -> new StageInfo("loop_guard", "d", List.of(StageParameter.integer("n", 1, 0, 2, "n"))));
        assertTrue(e.getMessage().contains("loop_guard_<something>"), e.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> new StageInfo("loop_guard", "d", List.of(StageParameter.integer("loop_guard_", 1, 0, 2, "n"))));
        assertThrows(
                IllegalArgumentException.class,
                () -> new StageInfo(
                        "x",
                        "d",
                        List.of(
                                StageParameter.integer("x_a", 1, 0, 2, ""),
                                StageParameter.integer("x_a", 1, 0, 2, ""))),
                "twice");
    }

    @Test
    void refusesBadAndBuiltInNames() {
        for (String bad : List.of("Top", "1x", "a-b", "", "top_k", "temp", "nucleus", "x".repeat(65))) {
            assertThrows(IllegalArgumentException.class, () -> new StageInfo(bad, "", List.of()), bad);
        }
    }

    @Test
    void parametersCheckTheirDefaults() {
        assertThrows(IllegalArgumentException.class, () -> StageParameter.integer("a_b", 5, 0, 4, ""));
        assertThrows(IllegalArgumentException.class, () -> StageParameter.number("a_b", Double.NaN, 0, 4, ""));
        assertThrows(IllegalArgumentException.class, () -> StageParameter.text("a_b", "long", 2, ""));
    }

    @Test
    void argumentsAreTyped() {
        StageArguments a = new StageArguments(Map.of("s_n", 3L, "s_p", 0.25, "s_b", false, "s_t", "hi"));
        assertEquals(3, a.integer("s_n"));
        assertEquals(0.25, a.number("s_p"));
        assertEquals(false, a.bool("s_b"));
        assertEquals("hi", a.text("s_t"));
        assertThrows(IllegalArgumentException.class, () -> a.integer("s_p"), "a number is not an integer");
        var e = assertThrows(IllegalArgumentException.class, () -> a.integer("nope"));
        assertTrue(e.getMessage().contains("nope"));
    }
}
